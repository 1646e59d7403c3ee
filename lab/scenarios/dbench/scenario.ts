import { z } from 'zod';
import { MOUNT_KIND_NAMES } from '../../catalog.js';
import type { Scenario } from '../types.js';
import { parseDbench } from './parse.js';
import { dbenchReport } from './report.js';

const params = z
  .object({
    /** Simulated clients (seed 002 ran 4). */
    clients: z.number().int().min(1).max(256).default(4).describe('simulated clients'),
    /** Seconds of measured load; dbench warms up for another fifth of it first (seed 002: 600). */
    duration: z
      .number()
      .int()
      .min(2)
      .max(3600)
      .default(60)
      .describe('seconds of measured load; dbench warms up a fifth of it first'),
    /** A loadfile shipped in the dbench tool image (/usr/share/dbench). */
    loadfile: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{0,63}\.txt$/, { message: 'expected a loadfile name such as "client.txt"' })
      .default('client.txt')
      .describe('a loadfile of the dbench image (`/usr/share/dbench`)'),
  })
  .strict()
  .describe('enables dbench (seed 002)');

export type DbenchParams = z.output<typeof params>;

/** Seconds dbench runs by its parameters: its warm-up (a fifth of the time limit) and the time limit. */
const runSeconds = (p: DbenchParams) => Math.ceil(p.duration * 1.2);

export const dbench: Scenario<DbenchParams> = {
  name: 'dbench',
  seed: '002',
  summary: 'dbench: a file-server workload (NetBench client.txt) on each mount kind',
  params,
  mounts: MOUNT_KIND_NAMES, // every kind, the shared folders included
  toolImages: ['dbench'],
  rawFile: 'dbench.txt',
  matrixMetric: 'throughput',
  metrics: [
    {
      name: 'throughput',
      unit: 'MB/s',
      better: 'higher',
      description: 'dbench throughput (MB = 10^6 bytes)',
      compare: true,
    },
    { name: 'max_latency', unit: 'ms', better: 'lower', description: 'worst operation latency of the run' },
    { name: 'clients', unit: 'clients', better: 'higher', description: 'clients dbench ran' },
    { name: 'op_count', unit: 'ops', better: 'higher', description: 'operations of this kind done' },
    { name: 'op_avg_latency', unit: 'ms', better: 'lower', description: 'mean latency of this operation' },
    { name: 'op_max_latency', unit: 'ms', better: 'lower', description: 'worst latency of this operation' },
  ],
  guestEnv: (p) => ({
    LL_P_CLIENTS: String(p.clients),
    LL_P_DURATION: String(p.duration),
    LL_P_LOADFILE: p.loadfile,
  }),
  // The container start and cleanup come on top of the run itself: 6 s under TCG
  // (seeds-tcg, run 20261202-095908-seeds-tcg-7da1: 9.1 s a trial for 3 s of run).
  expectedSeconds: (p) => runSeconds(p) + 6,
  timedSeconds: runSeconds,
  // client.txt's file set is about 25 MB per client.
  diskBytes: (p) => p.clients * 32 * 1024 ** 2,
  parse: parseDbench,
  report: dbenchReport,
};
