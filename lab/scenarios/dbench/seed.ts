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
  {
    label: 'setups',
    seed: 'boot2docker (VirtualBox, vboxsf share) and Vagrant + CoreOS (NFS share), on a Mac',
    run: { stack: { same: [] } },
    source: {
      seed: '002',
      line: 3,
      words: 'boot2docker + docker-compose',
      gloss: 'boot2docker + docker-compose, then Vagrant + CoreOS (line 4)',
    },
  },
];

/**
 * Throughput (MB/s) on the container's file system and on the mounted host
 * folder: boot2docker's (vboxsf) and the Vagrant CoreOS box's (NFS).
 */
export const DBENCH_SEED_FIGURES = {
  containerFs: { value: 30.1989, source: { seed: '002', line: 32, words: 'Throughput 30.1989 MB/sec' } },
  sharedFolder: { value: 1.16189, source: { seed: '002', line: 53, words: 'Throughput 1.16189 MB/sec' } },
  coreosContainerFs: { value: 161.082, source: { seed: '002', line: 76, words: 'Throughput 161.082 MB/sec' } },
  coreosNfs: { value: 55.0096, source: { seed: '002', line: 99, words: 'Throughput 55.0096 MB/sec' } },
} as const satisfies Record<string, SeedFigure>;
