/**
 * Headless Chromium for the report tests (lab/util/chromium.ts launches it),
 * and the skip reason when the machine has none.
 */
import { findChromium } from '../../../lab/util/chromium.ts';
import { needs } from '../installed.ts';

export { launchChromium } from '../../../lab/util/chromium.ts';

export const CHROMIUM = findChromium();

/** A test's skip reason when there is no Chromium, else false. */
export const SKIP_WITHOUT_CHROMIUM = CHROMIUM === undefined && needs('chromium');
