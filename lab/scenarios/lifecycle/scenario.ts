import { z } from 'zod';
import type { Scenario } from '../types.js';
import { parseLifecycle } from './parse.js';
import { lifecycleReport } from './report.js';

const params = z
  .object({
    /** Containers started, inspected, stopped and removed (seed 004: 10). */
    containers: z.number().int().min(1).max(500).default(10),
    /** Containers churning packages at once (seed 004: 5); 0 skips the churn. */
    churnContainers: z.number().int().min(0).max(50).default(5),
  })
  .strict();

export type LifecycleParams = z.output<typeof params>;

export const lifecycle: Scenario<LifecycleParams> = {
  name: 'lifecycle',
  seed: '004',
  summary: 'lifecycle: docker run/inspect --size/stop/rm of N containers, and package churn in M containers',
  params,
  mounts: [],
  toolImages: ['shell', 'churn'],
  // Run on Podman by test/e2e/stacks.test.ts: only docker commands podman takes alike.
  engines: ['docker', 'podman'],
  rawFile: 'lifecycle.tsv',
  metrics: [
    {
      name: 'seconds',
      unit: 's',
      better: 'lower',
      description: 'wall time of the phase over all its containers',
      compare: true,
    },
  ],
  guestEnv: (p) => ({ LL_P_CONTAINERS: String(p.containers), LL_P_CHURN_CONTAINERS: String(p.churnContainers) }),
  // Measured under TCG: a docker run 6-12 s, with inspect, stop and rm ~12 s per container;
  // dpkg -i and -P of the package set ~40 s per container.
  expectedSeconds: (p) => 10 + 12 * p.containers + 40 * p.churnContainers,
  diskBytes: (p) => (p.containers + p.churnContainers) * 64 * 1024 ** 2,
  parse: parseLifecycle,
  report: lifecycleReport,
};
