import type { SeedFigure, SeedParameter } from '../../report/seed-facts.js';
import { SEED_003_STACK } from '../fio/seed.js';

const DATASET = { seed: '003', line: 28 } as const;

/** Seed 003's backup block: one dataset, tar czf three ways. */
export const BACKUP_SEED_PARAMETERS: readonly SeedParameter[] = [
  SEED_003_STACK,
  {
    label: 'large files',
    seed: 2000,
    run: { param: 'largeFiles' },
    source: { ...DATASET, words: '2,000 files of 64 KiB' },
  },
  {
    label: 'large file size',
    seed: '64k',
    run: { param: 'largeSize' },
    source: { ...DATASET, words: '2,000 files of 64 KiB' },
  },
  {
    label: 'small files',
    seed: 20000,
    run: { param: 'smallFiles' },
    source: { ...DATASET, words: '20,000 small files' },
  },
  {
    label: 'small file size',
    seed: '200',
    run: { param: 'smallSize' },
    source: {
      ...DATASET,
      words: '135,072,000 bytes',
      gloss: '(135,072,000 − 2,000 × 65,536) / 20,000 = 200 bytes each',
    },
  },
  {
    label: 'tar and gzip',
    seed: "the helper container's busybox tar and gzip, GNU tar on the host",
    run: { fixed: 'the same GNU tar and gzip binaries in all three methods (sha256 checked)' },
    source: { seed: '003', line: 30, words: 'the helper ran Alpine’s busybox tar and gzip' },
  },
  {
    label: 'order of the methods',
    seed: 'fixed in each repetition',
    run: { fixed: 'shuffled per trial, page cache dropped before each' },
    source: { seed: '003', line: 30, words: 'The three methods also ran in a fixed order in each repetition' },
  },
];

/** The seed's median seconds per method. */
export const BACKUP_SEED_FIGURES = {
  'host-bind': { value: 4.36, source: { seed: '003', line: 30, words: '4.36 and 4.30 s median' } },
  'host-volume': { value: 4.3, source: { seed: '003', line: 30, words: '4.30 s median' } },
  'helper-container': { value: 6.19, source: { seed: '003', line: 30, words: '6.19 s median' } },
} as const satisfies Record<string, SeedFigure>;
