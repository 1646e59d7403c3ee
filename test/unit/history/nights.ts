/**
 * Constructed nights for history tests, as `report` hands them to the
 * history: one lab of two hosts (xfs, dm), fio bw and clat_p99 per host,
 * mount, job and repetition, seeded log-normal noise; host xfs's bandwidth
 * scaled by `xfsFactor` (0.8 is a 20% regression). Each night's environment
 * is recorded as a run records it (inventory labels, env summary), so its
 * comparison key can be changed field by field.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareCommand } from '../../../lab/commands/compare-runs.ts';
import { History } from '../../../lab/history/history.ts';
import type { LoadedRun } from '../../../lab/record/load.ts';
import type { Sample } from '../../../lab/record/samples.ts';
import { mulberry32 } from '../../../lab/util/rng.ts';

export const HOSTS = [
  { name: 'xfs', profile: 'overlay2-xfs' },
  { name: 'dm', profile: 'devicemapper-lvm' },
];
const MOUNTS = ['layer', 'volume', 'bind'];
const JOBS = [
  { job: 'seqwrite', direction: 'write', bw: 200_000 },
  { job: 'randread', direction: 'read', bw: 40_000 },
];

export interface Night {
  /** The night's number: its run id is runId(n). */
  n: number;
  /** Multiplies host xfs's bandwidth (its latency by the inverse): 0.8 is a 20% regression. */
  xfsFactor?: number;
  /** Seed of the noise; 1000 + n unless given. */
  seed?: number;
  /** Repetitions per host, mount and job. */
  reps?: number;
  /** Coefficient of variation of the noise. */
  cv?: number;
  /** Trials the night's summary counts as failed. */
  failed?: number;
  target?: string;
  hosts?: typeof HOSTS;
  /** fio's file size in the recorded lab (a scenario parameter). */
  fioSize?: string;
  /** Host xfs's kernel (env summary.json). */
  kernel?: string;
  /** Host xfs's AMI release date (inventory labels ami and amiName, as infra/aws/program.ts records them). */
  amiRelease?: string;
}

const AMI_OWNER = '136693986130';
/** The AMI labels of a Debian 12 image of that release (ids made up, one per release). */
export function amiOf(release: string): Record<string, string> {
  return { ami: `ami-0${release.replace(/\D/g, '')}`, amiName: `debian-12-amd64-${release}`, amiOwner: AMI_OWNER };
}

export const runId = (n: number) => `20261201-02${String(n).padStart(2, '0')}00-nightly-0001`;

export function night({
  n,
  xfsFactor = 1,
  seed = 1000 + n,
  reps = 5,
  cv = 0.03,
  failed = 0,
  target = 'aws',
  hosts = HOSTS,
  fioSize = '2G',
  kernel = '6.1.0-27-cloud-amd64',
  amiRelease = '20261101-1900',
}: Night): LoadedRun {
  const next = mulberry32(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
  const samples: Sample[] = [];
  for (const host of hosts)
    for (const mount of MOUNTS)
      for (const { job, direction, bw } of JOBS)
        for (let rep = 1; rep <= reps; rep++) {
          const value = bw * (host.name === 'xfs' ? xfsFactor : 1) * Math.exp(cv * normal());
          const base = {
            run: runId(n),
            host: host.name,
            profile: host.profile,
            scenario: 'fio',
            mount,
            rep,
            trial: `r${rep}-${host.name}-fio-${mount}`,
            timestamp: '2026-12-01T02:00:00Z',
          };
          samples.push({ ...base, metric: 'bw', value, unit: 'KiB/s', job, direction });
          samples.push({ ...base, metric: 'clat_p99', value: 1e9 / value, unit: 'us', job, direction });
        }
  const env = new Map(
    hosts.map((h) => [
      h.name,
      {
        kernel: h.name === 'xfs' ? kernel : '6.1.0-27-cloud-amd64',
        docker_version: '27.3.1',
        containerd_version: '1.7.22',
        storage_driver: h.profile.startsWith('overlay2') ? 'overlay2' : 'devicemapper',
        hostname: `host-${n}`,
      },
    ]),
  );
  const trials = hosts.length * MOUNTS.length * reps;
  return {
    dir: `/nonexistent/${runId(n)}`,
    manifest: {
      runId: runId(n),
      // One night a day, from 2026-12-01.
      startedAt: new Date(Date.UTC(2026, 11, n, 2, 0)).toISOString().replace('.000', ''),
      gitRevision: 'abc',
      lab: { name: 'nightly', hosts, scenarios: { fio: { size: fioSize, runtime: 30 } } },
      inventory: {
        target,
        hosts: hosts.map((h) => ({
          ...h,
          labels: {
            target,
            instanceType: 'm6i.large',
            region: 'eu-central-1',
            ...amiOf(h.name === 'xfs' ? amiRelease : '20261101-1900'),
          },
        })),
      },
    },
    samples,
    journal: [],
    summary: { runId: runId(n), trials, done: trials - failed, failed, stoppedBy: 'fixed-count', wallSeconds: 3600 },
    env,
    noise: [],
  } as unknown as LoadedRun;
}

/** A results folder as LAYERLAB_RESULTS for the tests of one file; restore() puts things back. */
export function resultsFolder(): { path: string; record(n: Night): Promise<void>; restore(): void } {
  const saved = process.env.LAYERLAB_RESULTS;
  const path = mkdtempSync(join(tmpdir(), 'layerlab-nights-'));
  process.env.LAYERLAB_RESULTS = path;
  return {
    path,
    async record(n: Night) {
      const h = await History.forResults(path);
      try {
        h.record(night(n));
      } finally {
        h.close();
      }
    },
    restore() {
      if (saved === undefined) Reflect.deleteProperty(process.env, 'LAYERLAB_RESULTS');
      else process.env.LAYERLAB_RESULTS = saved;
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/** Host xfs's kernel on the third of threeNights. */
export const NEW_KERNEL = '6.1.0-28-cloud-amd64';

/**
 * The trend tests' history: three nights, the second 20% slower on host xfs
 * and flagged by `compare --baseline last --threshold 5%` (as the nightly
 * judges), the third back to normal on a new kernel of host xfs.
 */
export async function threeNights(folder: ReturnType<typeof resultsFolder>): Promise<void> {
  await folder.record({ n: 1, seed: 1 });
  await folder.record({ n: 2, seed: 2, xfsFactor: 0.8 });
  await folder.record({ n: 3, seed: 3, kernel: NEW_KERNEL });
  for (const n of [2, 3]) await compareCommand([runId(n)], { baseline: 'last', threshold: '5%' });
}
