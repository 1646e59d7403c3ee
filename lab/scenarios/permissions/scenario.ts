import { z } from 'zod';
import type { Scenario } from '../types.js';
import { PERMISSION_CASES } from './cases.js';
import { parsePermissions } from './parse.js';
import { permissionsReport } from './report.js';

const CASE_NAMES = PERMISSION_CASES.map((c) => c.name) as [string, ...string[]];

const params = z
  .object({
    /** Which of seed 003's cases to run (default all seven, in the seed's order). */
    cases: z
      .array(z.enum(CASE_NAMES))
      .min(1)
      .default([...CASE_NAMES])
      .describe("which cases to run, default all seven; always in the seed's order"),
  })
  .strict()
  .describe('enables permissions (seed 003)');

export const permissions: Scenario<z.output<typeof params>> = {
  name: 'permissions',
  seed: '003',
  summary: 'permissions: a non-root container (uid 65534) writing to bind mounts and volumes, seven ways',
  params,
  mounts: [],
  toolImages: ['shell'],
  rawFile: 'permissions.tsv',
  metrics: [
    { name: 'wrote', unit: 'bool', better: 'higher', description: '1 when the container could write its file' },
    { name: 'exit_status', unit: 'status', better: 'lower', description: "the container's exit status" },
    {
      name: 'host_list',
      unit: 'bool',
      better: 'lower',
      description: "1 when the host user (uid 1000) could list a volume's _data (volume cases only)",
    },
    {
      name: 'host_read',
      unit: 'bool',
      better: 'lower',
      description: '1 when the host user could read the file the container wrote into a volume (where it wrote one)',
    },
  ],
  guestEnv: (p) => ({ LL_P_CASES: p.cases.join(' ') }),
  // One container per case; under TCG a case takes ~8 s (seeds-tcg,
  // run 20261202-095908-seeds-tcg-7da1: 53.6 s a trial of 7 cases).
  expectedSeconds: (p) => 8 * p.cases.length,
  diskBytes: () => 1024 * 1024,
  parse: parsePermissions,
  report: permissionsReport,
};
