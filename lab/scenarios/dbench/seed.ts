import type { SeedFigure, SeedParameter } from '../../report/seed-facts.js';

/** Seed 002: `dbench 4`, ten minutes a run, on boot2docker and on Vagrant + CoreOS. */
export const DBENCH_SEED_PARAMETERS: readonly SeedParameter[] = [
  {
    label: 'dbench clients',
    seed: 4,
    run: { param: 'clients' },
    source: { seed: '002', line: 32, words: '4 clients' },
  },
  {
    label: 'dbench duration',
    seed: 600,
    unit: 's',
    run: { param: 'duration' },
    source: { seed: '002', line: 6, words: '1回10分かかります', gloss: 'one run takes 10 minutes' },
  },
];

/** boot2docker's throughput on the container's file system and on the vboxsf mount (MB/s). */
export const DBENCH_SEED_FIGURES = {
  containerFs: { value: 30.1989, source: { seed: '002', line: 32, words: 'Throughput 30.1989 MB/sec' } },
  sharedFolder: { value: 1.16189, source: { seed: '002', line: 53, words: 'Throughput 1.16189 MB/sec' } },
} as const satisfies Record<string, SeedFigure>;
