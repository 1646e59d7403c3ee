import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeRun } from '../../lab/analyze/analysis.ts';
import type { LoadedRun } from '../../lab/record/load.ts';
import type { Sample } from '../../lab/record/samples.ts';
import { buildReport } from '../../lab/report/build.ts';
import { renderHtml } from '../../lab/report/html.ts';
import { renderMarkdown } from '../../lab/report/markdown.ts';
import { mulberry32, shuffled } from '../../lab/util/rng.ts';

/** The lab fields a report reads from a run's manifest (name and the rest are filled in). */
interface MemoryLab {
  hosts: readonly { name: string; profile: string }[];
  mounts: readonly string[];
  repetitions?: number;
}

/** A loaded run held in memory, as `loadRun` would return it: `samples` of a lab named t. */
export function runInMemory(samples: Sample[], lab: MemoryLab): LoadedRun {
  return {
    dir: '/nonexistent',
    manifest: { runId: 'r', lab: { name: 't', ...lab } as { name: string } },
    samples,
    journal: [],
    env: new Map(),
    noise: [],
  };
}

/** report.md and report.html of a loaded run, as `layerlab report` renders them. */
export async function renderRun(run: LoadedRun): Promise<{ md: string; html: string }> {
  const model = buildReport(run, analyzeRun(run));
  return { md: renderMarkdown(model), html: await renderHtml(model) };
}

/**
 * writeRun's trials with `phases`: 14 s of wall, 11 s of it marked by the
 * guest, 8 s of that the tool's run (quick's fio times 6 s of it: 2 jobs × (1 s ramp + 2 s runtime)).
 */
export const TRIAL_WALL_FIXTURE = 14;
export const TRIAL_PHASES_FIXTURE = {
  setup: 0.05,
  script: 0.15,
  mount: 0.3,
  start: 1.5,
  work: 8,
  output: 0.4,
  cleanup: 0.55,
  finish: 0.05,
};

/** A drift injected into one cell of writeRun's run: its values multiplied by 1 + perTrial × the trial's position. */
export interface InjectedDrift {
  host: string;
  mount: string;
  /** Relative change per trial of the run (0.05: 5% more for each trial that ran before it). */
  perTrial: number;
}

/**
 * Repetition-to-repetition noise of writeRun's values: 1% to 5%, in no order
 * (3, 1, 5, 2, 4, then again), so that no cell drifts with its position
 * unless a drift is injected.
 */
const JITTER = [1.03, 1.01, 1.05, 1.02, 1.04];

/** A fio job of the fixture: its labels, and devicemapper's bandwidth against overlay2's (undefined: dmFactor). */
interface FixtureJob {
  job: string;
  direction: string;
  dmFactor?: number;
}

/**
 * A run folder as the runner writes it, with made-up but plausible numbers:
 * fio's randread on two hosts and two mount kinds by default; `quick` gives
 * labs/quick.yaml's shape (seqwrite and randread, three mount kinds, both
 * hosts' environments). Every repetition runs the cells (host × mount) in a
 * shuffled order, as the plan does, and the journal records them in that order.
 * `phases` gives every done trial a wall time and the guest's phases
 * (TRIAL_PHASES_FIXTURE); without, the journal is as runs before phases wrote it.
 */
export function writeRun(
  dir: string,
  {
    dmFactor = 0.7,
    runId = 'r-demo',
    repetitions = 5,
    drift,
    quick = false,
    phases = false,
  }: {
    dmFactor?: number;
    runId?: string;
    repetitions?: number;
    drift?: InjectedDrift;
    quick?: boolean;
    phases?: boolean;
  } = {},
): void {
  mkdirSync(dir, { recursive: true });
  const lab = {
    name: quick ? 'quick' : 'demo',
    seed: 1,
    repetitions,
    hosts: [
      { name: 'xfs', profile: 'overlay2-xfs' },
      { name: 'dm', profile: 'devicemapper-lvm' },
    ],
    mounts: quick ? ['layer', 'volume', 'bind'] : ['layer', 'volume'],
    // labs/quick.yaml's fio parameters.
    ...(quick
      ? {
          scenarios: {
            fio: {
              size: '32M',
              runtime: 2,
              ramp: 1,
              jobs: ['seqwrite', 'randread'],
              blockSize: { seq: '1M', rand: '4k' },
              iodepth: 16,
            },
          },
        }
      : {}),
  };
  // In the quick shape seqwrite is as fast on both hosts: a cell within ±10% beside randread's difference.
  const jobs: FixtureJob[] = [
    ...(quick ? [{ job: 'seqwrite', direction: 'write', dmFactor: 1 }] : []),
    { job: 'randread', direction: 'read' },
  ];
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({
      runId: 'r-demo',
      lab,
      inventory: { target: 'local' },
      plan: { seed: 1, mode: 'serial' },
      gitRevision: 'abc',
    }),
  );
  const lines: string[] = [];
  const trials: { id: string; host: string; profile: string; scenario: string; mount: string; rep: number }[] = [];
  const journal: string[] = [];
  const random = mulberry32(lab.seed);
  const cells = lab.hosts.flatMap((host) => lab.mounts.map((mount) => ({ host, mount })));
  for (let rep = 1; rep <= lab.repetitions; rep++) {
    for (const { host, mount } of shuffled(cells, random)) {
      const position = trials.length;
      const trial = `r${rep}-${host.name}-fio-${mount}`;
      trials.push({ id: trial, host: host.name, profile: host.profile, scenario: 'fio', mount, rep });
      mkdirSync(join(dir, 'trials', trial), { recursive: true });
      // Host xfs was busy before its first trials (load 3 on 2 CPUs); dm reports 0.5 s of steal per trial.
      writeFileSync(
        join(dir, 'trials', trial, 'meta.json'),
        JSON.stringify({
          start: '100.0',
          end: '130.0',
          exit_status: '0',
          loadavg_before: `${host.name === 'xfs' && rep === 1 ? 3 : 0.5} 0.4 0.3 1/100 42`,
          loadavg_after: '1.00 0.5 0.3 1/100 42',
          steal_ticks_before: '1000',
          steal_ticks_after: host.name === 'dm' ? '1050' : '1000',
          clk_tck: '100',
        }),
      );
      const timing = phases ? { wallSeconds: TRIAL_WALL_FIXTURE, phases: TRIAL_PHASES_FIXTURE } : {};
      journal.push(JSON.stringify({ trial, host: host.name, state: 'done', ...timing }));
      const drifted = drift?.host === host.name && drift.mount === mount ? 1 + drift.perTrial * position : 1;
      for (const job of jobs) {
        // devicemapper at about 70% of overlay2; mounts within 2% of each other.
        const factor = host.name === 'xfs' ? 1 : (job.dmFactor ?? dmFactor);
        const bw =
          100_000 * factor * (JITTER[(rep - 1) % JITTER.length] as number) * (mount === 'volume' ? 1.01 : 1) * drifted;
        for (const [metric, value, unit] of [
          ['bw', bw, 'KiB/s'],
          ['iops', bw / 4, 'IO/s'],
          ['clat_p99', 1e9 / bw, 'us'],
        ] as const) {
          lines.push(
            JSON.stringify({
              run: runId,
              host: host.name,
              profile: host.profile,
              scenario: 'fio',
              mount,
              rep,
              trial,
              metric,
              value,
              unit,
              timestamp: '2026-11-30T00:00:00Z',
              job: job.job,
              direction: job.direction,
            }),
          );
        }
      }
    }
  }
  journal.push(
    JSON.stringify({
      trial: 'r1-dm-fio-bind',
      host: 'dm',
      state: 'failed',
      reason: 'fio job seqwrite failed with error 28 (ENOSPC)',
    }),
  );
  writeFileSync(join(dir, 'plan.json'), JSON.stringify({ seed: 1, mode: 'serial', trials }));
  writeFileSync(join(dir, 'samples.ndjson'), `${lines.join('\n')}\n`);
  writeFileSync(join(dir, 'journal.ndjson'), `${journal.join('\n')}\n`);
  const xfsEnv = {
    kernel: '6.1.0-x-cloud-amd64',
    docker_version: '20.10.24+dfsg1',
    storage_driver: 'overlay2',
    backing_fs: 'xfs',
    docker_root_fstype: 'xfs',
    docker_root_source: '/dev/vdb',
    data_disk: '/dev/vdb',
    data_disk_bytes: String(4 * 1024 ** 3),
    cpus: '2',
    mem_bytes: String(1024 ** 3),
    loadavg: '0.10 0.20 0.30 1/100 42',
  };
  const dmEnv = {
    ...xfsEnv,
    storage_driver: 'devicemapper',
    backing_fs: 'extfs',
    docker_root_fstype: 'ext4',
    docker_root_source: '/dev/vda1',
    docker_root_options: 'rw,relatime',
    loadavg: '0.40 0.20 0.30 1/100 42',
  };
  const envs: [string, object][] = [
    [
      'xfs',
      quick ? { ...xfsEnv, docker_root_options: 'rw,relatime,attr2,inode64,logbufs=8,logbsize=32k,noquota' } : xfsEnv,
    ],
    ...(quick ? [['dm', dmEnv] as [string, object]] : []),
  ];
  for (const [host, env] of envs) {
    mkdirSync(join(dir, 'hosts', host, 'env'), { recursive: true });
    writeFileSync(join(dir, 'hosts', host, 'env', 'summary.json'), JSON.stringify(env));
  }
}
