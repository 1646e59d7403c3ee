/**
 * Headless Chromium for pictures of layerlab's pages (the report tests, the
 * docs' screenshots): Debian's binary when installed, with nothing that would
 * reach past 127.0.0.1 (no background networking, component updates, sync or
 * QUIC). playwright-core is loaded only when a browser is launched.
 */
import type { Browser } from 'playwright-core';
import { which } from './proc.js';

/** The Chromium binary on PATH, if any. */
export const findChromium = (): string | undefined => which('chromium') ?? which('chromium-browser');

export async function launchChromium(executablePath = findChromium()): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
