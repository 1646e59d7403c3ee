import { z } from 'zod';
import { MOUNT_KIND_NAMES } from '../../catalog.js';
import { parseSize } from '../../util/size.js';
import { sizeParam } from '../params.js';
import type { Scenario } from '../types.js';
import { FIO_JOBS, FIO_JOB_NAMES, parseFioJson } from './parse.js';
import { fioReport } from './report.js';

const params = z
  .object({
    /** File size each job works on (the seq-write job lays it out). */
    size: sizeParam(1024 * 1024, 1024 ** 4)
      .default('64M')
      .describe('file each job works on'),
    /** Seconds each job runs after its ramp. */
    runtime: z.number().int().min(1).max(3600).default(5).describe("each job's measured seconds"),
    /** Seconds each job runs before measuring. */
    ramp: z.number().int().min(0).max(600).default(1).describe("each job's seconds before measuring"),
    blockSize: z
      .object({
        seq: sizeParam(512, 64 * 1024 * 1024)
          .default('1M')
          .describe('sequential jobs'),
        rand: sizeParam(512, 64 * 1024 * 1024)
          .default('4k')
          .describe('random jobs'),
      })
      .strict()
      .default({})
      .describe('block size of the sequential and of the random jobs'),
    iodepth: z.number().int().min(1).max(1024).default(16).describe('I/O depth of each job'),
    /**
     * Which of seed 003's four jobs to run, kept in their fio order (a
     * smaller cell lets a short lab afford the repetitions a claim needs).
     */
    jobs: z
      .array(z.enum(FIO_JOB_NAMES))
      .min(1)
      .refine((jobs) => new Set(jobs).size === jobs.length, { message: 'duplicate fio job' })
      .default([...FIO_JOB_NAMES])
      .describe("which jobs to run, default all four; always run in fio's order"),
    /**
     * fresh: a new container and new storage every trial, seed 003's `docker
     * run --rm` per run. kept: one container per cell (mount kind) for the
     * whole run, fio `docker exec`'d into it: container start, removal and the
     * mount's setup leave the trial, which fio's timed jobs never included.
     */
    container: z
      .enum(['fresh', 'kept'])
      .default('fresh')
      .describe("fresh: a new container every trial (the seed's); kept: one per mount kind for the run"),
    /**
     * per-trial: fio lays out (or its first write job creates) its file every
     * trial and the last job unlinks it. once: a kept container's file stays
     * for the next trial, for read-only job sets (a write job into a reused
     * file overwrites written blocks instead of fresh ones: another measurement).
     */
    layout: z
      .enum(['per-trial', 'once'])
      .default('per-trial')
      .describe("per-trial: fio's file made every trial (the seed's); once: kept for read-only jobs"),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.layout !== 'once') return;
    if (p.container !== 'kept') {
      ctx.addIssue({
        code: 'custom',
        path: ['layout'],
        message: 'layout: once needs container: kept (a fresh container has no file to reuse)',
      });
    }
    const writes = FIO_JOBS.filter((j) => p.jobs.includes(j.name) && j.direction === 'write').map((j) => j.name);
    if (writes.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['layout'],
        message: `layout: once is for read-only jobs; ${writes.join(', ')} would write into a reused file instead of a fresh one, which measures something else`,
      });
    }
  })
  .describe('enables fio (seed 003)');

export type FioParams = z.output<typeof params>;

/** The lab's jobs in fio's order, whatever order the lab listed them in. */
const selectedJobs = (p: FioParams) => FIO_JOBS.filter((j) => p.jobs.includes(j.name));

/** Seconds the jobs run for by their parameters: ramp and runtime each. */
const jobSeconds = (p: FioParams) => selectedJobs(p).length * (p.ramp + p.runtime);

export const fio: Scenario<FioParams> = {
  name: 'fio',
  seed: '003',
  summary: 'fio: sequential write, sequential read, random write, random read (direct I/O, libaio)',
  params,
  mounts: MOUNT_KIND_NAMES, // every kind, the shared folders included
  toolImages: ['fio'],
  // Run on Podman by test/e2e/stacks.test.ts: only docker commands podman takes alike.
  engines: ['docker', 'podman'],
  rawFile: 'fio.json',
  matrixMetric: 'bw',
  metrics: [
    { name: 'bw', unit: 'KiB/s', better: 'higher', description: 'bandwidth (fio bw, KiB/s)', compare: true },
    { name: 'iops', unit: 'IO/s', better: 'higher', description: 'I/O operations per second' },
    { name: 'clat_mean', unit: 'us', better: 'lower', description: 'completion latency, mean' },
    { name: 'clat_p50', unit: 'us', better: 'lower', description: 'completion latency, 50th percentile' },
    {
      name: 'clat_p99',
      unit: 'us',
      better: 'lower',
      description: 'completion latency, 99th percentile',
      compare: true,
    },
  ],
  guestEnv: (p) => ({
    LL_P_SIZE: String(parseSize(p.size)),
    LL_P_RUNTIME: String(p.runtime),
    LL_P_RAMP: String(p.ramp),
    LL_P_BS_SEQ: String(parseSize(p.blockSize.seq)),
    LL_P_BS_RAND: String(parseSize(p.blockSize.rand)),
    LL_P_IODEPTH: String(p.iodepth),
    // name:rw:bs triples; the guest builds fio's job list from them.
    LL_P_JOBS: selectedJobs(p)
      .map((j) => `${j.name}:${j.rw}:${j.bs}`)
      .join(' '),
    LL_P_CONTAINER: p.container,
    LL_P_LAYOUT: p.layout,
  }),
  // The jobs' ramp + runtime, plus what a trial spends around them under TCG
  // (`npm run bench:trial-time`, labs/quick.yaml and labs/demo.yaml, 2026-12-05):
  // a new container every trial 6.3-6.7 s (its start, fio's start and layout,
  // output and cleanup, the harness); a kept one 3.8-4.2 s (docker exec, fio).
  expectedSeconds: (p) => jobSeconds(p) + (p.container === 'kept' ? 4 : 7),
  timedSeconds: jobSeconds,
  diskBytes: (p) => parseSize(p.size) ?? 0,
  parse: parseFioJson,
  report: fioReport,
};
