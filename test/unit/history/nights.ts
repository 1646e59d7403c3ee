/**
 * Constructed nights for history tests: one lab of two hosts (xfs, dm),
 * fio bw and clat_p99 on three mounts, seeded log-normal noise; host xfs's
 * bandwidth scaled by `xfsFactor` (0.8 is a 20% regression). Each night's
 * environment is recorded as a run records it (inventory labels, env
 * summary), so its comparison key can be changed field by field.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { History } from '../../../lab/history/history.ts';
import type { LoadedRun } from '../../../lab/record/load.ts';
import type { Sample } from '../../../lab/record/samples.ts';
import { mulberry32 } from '../../../lab/util/rng.ts';

const HOSTS = [
  { name: 'xfs', profile: 'overlay2-xfs' },
  { name: 'dm', profile: 'devicemapper-lvm' },
];
const MOUNTS = ['layer', 'volume', 'bind'];
const JOBS = [
  { job: 'seqwrite', direction: 'write', bw: 200_000 },
  { job: 'randread', direction: 'read', bw: 40_000 },
];

export interface Night {
  n: number;
  xfsFactor?: number;
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
  kernel = '6.1.0-27-cloud-amd64',
  amiRelease = '20261101-1900',
}: Night): LoadedRun {
  const next = mulberry32(1000 + n);
  const normal = () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
  const samples: Sample[] = [];
  for (const host of HOSTS)
    for (const mount of MOUNTS)
      for (const { job, direction, bw } of JOBS)
        for (let rep = 1; rep <= 5; rep++) {
          const value = bw * (host.name === 'xfs' ? xfsFactor : 1) * Math.exp(0.03 * normal());
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
    HOSTS.map((h) => [
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
  const trials = HOSTS.length * MOUNTS.length * 5;
  return {
    dir: `/nonexistent/${runId(n)}`,
    manifest: {
      runId: runId(n),
      startedAt: '2026-12-01T02:00:00Z',
      gitRevision: 'abc',
      lab: { name: 'nightly', hosts: HOSTS, scenarios: { fio: { size: '2G', runtime: 30 } } },
      inventory: {
        target: 'aws',
        hosts: HOSTS.map((h) => ({
          ...h,
          labels: {
            target: 'aws',
            instanceType: 'm6i.large',
            region: 'eu-central-1',
            ...amiOf(h.name === 'xfs' ? amiRelease : '20261101-1900'),
          },
        })),
      },
    },
    samples,
    journal: [],
    summary: { runId: runId(n), trials, done: trials, failed: 0, stoppedBy: 'fixed-count', wallSeconds: 3600 },
    env,
    noise: [],
  } as unknown as LoadedRun;
}

/** A results folder as LAYERLAB_RESULTS for the tests of one file; restore() puts things back. */
export function resultsFolder(): { path: string; record(n: Night): void; restore(): void } {
  const saved = process.env.LAYERLAB_RESULTS;
  const path = mkdtempSync(join(tmpdir(), 'layerlab-nights-'));
  process.env.LAYERLAB_RESULTS = path;
  return {
    path,
    record(n: Night) {
      const h = History.forResults(path);
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
