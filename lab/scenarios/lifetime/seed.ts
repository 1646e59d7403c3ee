import type { SeedParameter } from '../../report/seed-facts.js';
import { SEED_003_STACK } from '../fio/seed.js';

/** Seed 003's lifetime check: one file in each place, the container then removed and recreated. */
export const LIFETIME_SEED_PARAMETERS: readonly SeedParameter[] = [SEED_003_STACK];

/** What the seed found after the container was recreated: only the layer's file was gone (line 24). */
export const LIFETIME_SEED_OUTCOME = { layer: false, volume: true, bind: true } as const;
