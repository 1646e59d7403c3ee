/**
 * Headless Chromium for the report tests (lab/util/chromium.ts launches it),
 * and the skip reason when the machine has none.
 */
import type { Browser, Page } from 'playwright-core';
import { findChromium } from '../../../lab/util/chromium.ts';
import { needs } from '../installed.ts';

export { launchChromium } from '../../../lab/util/chromium.ts';

export const CHROMIUM = findChromium();

/** A test's skip reason when there is no Chromium, else false. */
export const SKIP_WITHOUT_CHROMIUM = CHROMIUM === undefined && needs('chromium');

/**
 * A new page of `browser` opened on `file`, with every console error or
 * warning and every uncaught page error collected in `problems` (a rendered
 * page should have none). `viewport` as playwright takes it; its default otherwise.
 */
export async function openWatched(
  browser: Browser,
  file: string,
  viewport?: { width: number; height: number },
): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage(viewport ? { viewport } : {});
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`file://${file}`);
  return { page, problems };
}
