/**
 * Headless Chromium for the report tests: Debian's binary when installed,
 * with nothing that would reach past 127.0.0.1 (no background networking,
 * component updates, sync or QUIC).
 */
import type { Browser } from 'playwright-core';
import { findOnPath, needs } from '../installed.ts';

export const CHROMIUM = findOnPath('chromium') ?? findOnPath('chromium-browser');

/** A test's skip reason when there is no Chromium, else false. */
export const SKIP_WITHOUT_CHROMIUM = CHROMIUM === undefined && needs('chromium');

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
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
