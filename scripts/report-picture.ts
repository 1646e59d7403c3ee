/**
 * The picture of a report's first screen that README.md and
 * docs/reading-the-report.md show: report.html of a real run opened in
 * headless Chromium at 1280×800, the at-a-glance matrix and the seed claims
 * as a reader sees them before scrolling.
 * Usage: node --import tsx scripts/report-picture.ts <run>/report.html docs/report-at-a-glance.png
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findChromium, launchChromium } from '../lab/util/chromium.ts';

const [html, png] = process.argv.slice(2);
if (!html || !png || !existsSync(html)) {
  console.error('usage: report-picture.ts <run>/report.html <out.png> (the report must exist)');
  process.exit(2);
}
if (!findChromium()) {
  console.error('report-picture: no chromium on PATH (Debian: apt-get install chromium)');
  process.exit(1);
}
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(pathToFileURL(resolve(html)).href);
  await page.screenshot({ path: png });
  console.log(`wrote ${png}`);
} finally {
  await browser.close();
}
