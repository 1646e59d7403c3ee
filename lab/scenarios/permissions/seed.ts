import type { SeedParameter, SeedSource } from '../../report/seed-facts.js';
import { SEED_003_STACK } from '../fio/seed.js';
import { PERMISSION_CASES } from './cases.js';

/** Seed 003's permission block: prometheus (uid 65534) writing its data directory, mounted seven ways. */
export const PERMISSIONS_SEED_PARAMETERS: readonly SeedParameter[] = [
  SEED_003_STACK,
  {
    label: 'cases',
    seed: PERMISSION_CASES.map((c) => c.name),
    run: { param: 'cases' },
    source: { seed: '003', line: 13, words: 'Each row mounts the data directory in a different way' },
  },
  {
    label: 'image',
    seed: 'prom/prometheus:v3.15.1, running as uid 65534',
    run: { fixed: 'the shell tool image run as uid 65534, its /data owned by 65534:65534' },
    source: { seed: '003', line: 13, words: 'prom/prometheus:v3.15.1 runs as nobody (uid 65534)' },
  },
];

/**
 * What seed 003 says of the owners of its data and of the host user's
 * access, in its own words: the claims quote them, and
 * test/unit/report/seed-facts.test.ts checks them against the article.
 */
export const PERMISSIONS_SEED_WORDS = {
  volumeOwner: { seed: '003', line: 17, words: 'A fresh named volume worked, with owner 65534:65534' },
  hostUser: { seed: '003', line: 16, words: 'Owned by the host user (1000:1000)' },
  hostCannotRead: {
    seed: '003',
    line: 20,
    words:
      'The host user cannot read a volume’s files directly: ls /var/lib/docker/volumes/<name>/_data returned Permission denied',
  },
} as const satisfies Record<string, SeedSource>;
