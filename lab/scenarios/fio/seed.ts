import type { SeedParameter } from '../../report/seed-facts.js';

/**
 * Seed 003's fio run, from its "Reproduce" sketch and the lines under it
 * (the sketch is one job; the script ran four).
 */
export const FIO_SEED_PARAMETERS: readonly SeedParameter[] = [
  {
    label: 'fio file size',
    seed: '512M',
    run: { param: 'size' },
    source: { seed: '003', line: 35, words: '--size=512M' },
  },
  {
    label: 'fio runtime per job',
    seed: 15,
    unit: 's',
    run: { param: 'runtime' },
    source: { seed: '003', line: 35, words: '--runtime=15' },
  },
  {
    label: 'fio ramp per job',
    seed: 2,
    unit: 's',
    run: { param: 'ramp' },
    source: { seed: '003', line: 39, words: 'with a 2 s ramp' },
  },
  {
    label: 'fio iodepth',
    seed: 32,
    run: { param: 'iodepth' },
    source: { seed: '003', line: 35, words: '--iodepth=32' },
  },
  {
    label: 'fio random block size',
    seed: '4k',
    run: { param: 'blockSize.rand' },
    source: { seed: '003', line: 35, words: '--rw=randread --bs=4k' },
  },
  {
    label: 'fio jobs',
    seed: ['seqwrite', 'seqread', 'randwrite', 'randread'],
    run: { param: 'jobs' },
    source: {
      seed: '003',
      line: 39,
      words: 'the script runs four jobs in order (sequential write, sequential read, random write, random read)',
    },
  },
  {
    label: 'repetitions',
    seed: 3,
    unit: 'runs',
    run: { repetitions: true },
    source: { seed: '003', line: 9, words: 'with three runs per cell' },
  },
];
