import { z } from 'zod';
import type { Scenario } from '../types.js';
import { parseLifetime } from './parse.js';
import { lifetimeReport } from './report.js';

const params = z.object({}).strict().describe('enables lifetime (seed 003); no parameters (`lifetime: {}`)');

export const lifetime: Scenario<z.output<typeof params>> = {
  name: 'lifetime',
  seed: '003',
  summary: 'lifetime: which files survive a container restart and a remove + recreate (layer, volume, bind)',
  params,
  mounts: [],
  toolImages: ['shell'],
  rawFile: 'lifetime.tsv',
  metrics: [
    { name: 'survived', unit: 'bool', better: 'higher', description: '1 when the file written first was still there' },
  ],
  guestEnv: () => ({}),
  // Four containers started and one stopped; ~32 s under TCG (seeds-tcg,
  // run 20261202-095908-seeds-tcg-7da1: 31.4 s a trial).
  expectedSeconds: () => 32,
  diskBytes: () => 1024 * 1024,
  parse: parseLifetime,
  report: lifetimeReport,
};
