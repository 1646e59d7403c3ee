import { z } from 'zod';
import type { Scenario } from '../types.js';
import { DISK_METRICS, type DiskMetric } from './disk.js';
import { LIFECYCLE_PHASES, parseLifecycle } from './parse.js';
import { lifecycleReport } from './report.js';

const params = z
  .object({
    /** Containers started, inspected, stopped and removed (seed 004: 10). */
    containers: z.number().int().min(1).max(500).default(10).describe('containers run, inspected, stopped and removed'),
    /** Containers churning packages at once (seed 004: 5); 0 skips the churn. */
    churnContainers: z
      .number()
      .int()
      .min(0)
      .max(50)
      .default(5)
      .describe('containers churning packages at once; 0 skips the churn'),
    /**
     * The image the containers run: small (the shell tool image, a few MB)
     * or large (guest/images/large.image, over 1 GB of Debian packages, as
     * seed 004's 1.6 GB image; built once, then loaded on every host).
     */
    image: z
      .enum(['small', 'large'])
      .default('small')
      .describe(
        '`small`: the shell tool image; `large`: a Debian rootfs of about 1.4 GiB of packages, built only for labs that ask',
      ),
    /**
     * The disk use after each phase (seed 004's reason for being written:
     * its disk table and claim). false leaves it out: ~4 s of TCG per
     * measurement, five or seven per trial, outside the timed phases.
     */
    diskUse: z
      .boolean()
      .default(true)
      .describe("measure the engine's disk use after each phase (false: phases are timed alone, the trial is shorter)"),
  })
  .strict()
  .describe('enables lifecycle (seed 004)');

/** What each disk metric is (lab/scenarios/lifecycle/disk.ts reads them from lifecycle.tsv). */
const DISK_DESCRIPTIONS: Record<DiskMetric, string> = {
  data_root_bytes: "bytes du counts in the engine's data root after the phase",
  df_images_bytes: 'images as `system df` sizes them after the phase',
  df_containers_bytes: 'containers (their writable layers) as `system df` sizes them after the phase',
  df_volumes_bytes: 'local volumes as `system df` sizes them after the phase',
  thin_data_percent: "the devicemapper thin pool's data% (lvs) after the phase",
  thin_metadata_percent: "the devicemapper thin pool's metadata% (lvs) after the phase",
  thin_data_bytes: "the thin pool's size times its data%: the bytes devicemapper holds after the phase",
};

/**
 * Guest seconds of one disk measurement (sync, du, system df, lvs) under TCG:
 * 3.4 s on overlay2-ext4 and 4 s on devicemapper-lvm in run
 * 20261202-020717-helperd-disk-6600 (guest seconds less the timed phases and
 * the untimed churn start and cleanup, over its seven measurements).
 */
const DISK_SECONDS = 4;

/** The start row, run/inspect/stop/rm, and install/remove when there is churn. */
const diskMeasurements = (churnContainers: number) => 1 + LIFECYCLE_PHASES.length - (churnContainers > 0 ? 0 : 2);

export type LifecycleParams = z.output<typeof params>;

export const lifecycle: Scenario<LifecycleParams> = {
  name: 'lifecycle',
  seed: '004',
  summary: 'lifecycle: docker run/inspect --size/stop/rm of N containers, and package churn in M containers',
  params,
  mounts: [],
  toolImages: ['shell'],
  // The churn image (32 MB) is loaded only where a trial churns: each load is
  // seconds of TCG on every host, for nothing when churnContainers is 0.
  toolImagesFor: (p) => [...(p.churnContainers > 0 ? ['churn'] : []), ...(p.image === 'large' ? ['large'] : [])],
  // Run on Podman by test/e2e/stacks.test.ts: only docker commands podman takes alike.
  engines: ['docker', 'podman'],
  rawFile: 'lifecycle.tsv',
  matrixMetric: 'seconds',
  metrics: [
    {
      name: 'seconds',
      unit: 's',
      better: 'lower',
      description: 'wall time of the phase over all its containers',
      compare: true,
    },
    // The disk use after each phase: shown in the report's disk table, not compared (one value per trial and phase).
    ...(Object.keys(DISK_METRICS) as DiskMetric[]).map((name) => ({
      name,
      unit: DISK_METRICS[name],
      better: 'lower' as const,
      description: DISK_DESCRIPTIONS[name],
    })),
  ],
  guestEnv: (p) => ({
    LL_P_CONTAINERS: String(p.containers),
    LL_P_CHURN_CONTAINERS: String(p.churnContainers),
    LL_P_IMAGE: p.image,
    LL_P_DISK_USE: p.diskUse ? '1' : '0',
  }),
  // Under TCG: run, inspect, stop and rm ~5 s per container (seeds-tcg, run
  // 20261202-095908-seeds-tcg-7da1: 51.5 s a trial for 5 containers and five disk
  // measurements); dpkg -i and -P of the package set ~40 s per container; a disk
  // measurement at the start and after every phase that runs (the churn's two only with churn).
  expectedSeconds: (p) =>
    6 +
    5 * p.containers +
    40 * p.churnContainers +
    (p.diskUse ? DISK_SECONDS * diskMeasurements(p.churnContainers) : 0),
  diskBytes: (p) => (p.containers + p.churnContainers) * 64 * 1024 ** 2,
  parse: parseLifecycle,
  report: lifecycleReport,
};
