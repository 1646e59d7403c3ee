import type { SeedFigure, SeedParameter } from '../../report/seed-facts.js';

/** Seed 000: a 10 MB gzip MediaWiki dump, imported four times each way. */
export const DB_IMPORT_SEED_PARAMETERS: readonly SeedParameter[] = [
  {
    label: 'gzip dump size',
    seed: '10M',
    run: { param: 'size' },
    source: { seed: '000', line: 101, words: 'compressed using gzip -9 is just 10M' },
  },
  {
    label: 'repetitions',
    seed: 4,
    unit: 'runs',
    run: { repetitions: true },
    source: { seed: '000', line: 102, words: 'ran four tests using a named volume' },
  },
];

/** The mean import time (s) into the named volume and into the bind-mounted host folder. */
export const DB_IMPORT_SEED_FIGURES = {
  namedVolume: { value: 253.634, source: { seed: '000', line: 123, words: '4m13.634s' } },
  bindMount: { value: 20.451, source: { seed: '000', line: 144, words: '20.451s' } },
} as const satisfies Record<string, SeedFigure>;
