/**
 * The controller alone at scale: the real scheduler, executor, run record,
 * MANIFEST check and fio parser against fake hosts (test/unit/fake-session.ts)
 * that answer at once. Prints, from one run, wall time, CPU seconds and peak
 * RSS of this process for H hosts × T trials each (default 100 × 50, parallel).
 * What it shows: the controller's own cost per trial, which a real run adds to
 * every trial's SSH round trip and guest time.
 * Usage: npm run bench:controller [-- --hosts 100 --trials 50] [--json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadLabDefinition } from '../lab/definition/load.ts';
import type { LabDefinition } from '../lab/definition/schema.ts';
import { makePlan } from '../lab/plan/plan.ts';
import { RunRecord } from '../lab/record/record.ts';
import { schedule } from '../lab/run/scheduler.ts';
import { FakeWorld, fakeRunInput } from '../test/unit/fake-session.ts';
import { flagValue } from './args.ts';

function option(name: string, fallback: number): number {
  const flag = `--${name}`;
  // A flag without its number is refused below (NaN), not taken as the default.
  const value = process.argv.includes(flag) ? Number(flagValue(flag)) : fallback;
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write(`bench/controller: --${name} takes a positive whole number\n`);
    process.exit(2);
  }
  return value;
}

const hostCount = option('hosts', 100);
const trialsPerHost = option('trials', 50);
const asJson = process.argv.includes('--json');

/** labs/quick.yaml's fio, on `hostCount` hosts, one mount, `trialsPerHost` repetitions, hosts in parallel. */
async function scaledLab(): Promise<LabDefinition> {
  const quick = await loadLabDefinition(resolve(import.meta.dirname, '..', 'labs', 'quick.yaml'));
  const template = quick.hosts[0] as LabDefinition['hosts'][number];
  return {
    ...quick,
    name: 'controller-bench',
    target: { ...quick.target, trials: 'parallel' },
    hosts: Array.from({ length: hostCount }, (_, i) => ({ ...template, name: `h${String(i + 1).padStart(3, '0')}` })),
    mounts: ['layer'],
    repetitions: { ...quick.repetitions, min: trialsPerHost, max: trialsPerHost },
  };
}

const work = mkdtempSync(join(tmpdir(), 'layerlab-bench-controller-'));
// Progress lines (two per trial) would be most of the output: counted, not shown.
let progressLines = 0;
const write = process.stderr.write.bind(process.stderr);
try {
  const lab = await scaledLab();
  const plan = makePlan(lab);
  const record = await RunRecord.create(
    join(work, 'results'),
    lab.name,
    {
      startedAt: new Date().toISOString(),
      labFile: 'bench',
      lab,
      inventory: { target: 'local', hosts: [] },
      plan: { seed: plan.seed, mode: plan.mode },
      gitRevision: 'bench',
      versions: {},
      toolImages: {},
    },
    plan,
  );
  const messages: string[] = [];
  const input = fakeRunInput(new FakeWorld(), record, lab, plan, messages);
  process.stderr.write = ((chunk: string | Uint8Array) => {
    progressLines += String(chunk).split('\n').length - 1;
    return true;
  }) as typeof process.stderr.write;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const summary = await schedule(input);
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  process.stderr.write = write;
  if (summary.done !== plan.trials.length) throw new Error(`only ${summary.done} of ${plan.trials.length} trials done`);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  const figures = {
    hosts: hostCount,
    trialsPerHost,
    trials: plan.trials.length,
    wallSeconds: Number(wallS.toFixed(2)),
    cpuSeconds: Number(cpuS.toFixed(2)),
    userSeconds: Number((cpu.user / 1e6).toFixed(2)),
    systemSeconds: Number((cpu.system / 1e6).toFixed(2)),
    cpuMsPerTrial: Number(((cpuS * 1000) / plan.trials.length).toFixed(2)),
    peakRssMiB: Number((process.resourceUsage().maxRSS / 1024).toFixed(1)),
    progressLines,
  };
  if (asJson) process.stdout.write(`${JSON.stringify(figures)}\n`);
  else {
    process.stdout.write(
      [
        `controller alone, fake hosts: ${hostCount} hosts × ${trialsPerHost} trials = ${figures.trials} trials (parallel), all done`,
        `  wall ${figures.wallSeconds} s; CPU ${figures.cpuSeconds} s (user ${figures.userSeconds}, system ${figures.systemSeconds}); ${figures.cpuMsPerTrial} ms CPU per trial`,
        `  peak RSS ${figures.peakRssMiB} MiB; ${progressLines} progress lines written (not shown)`,
        '',
      ].join('\n'),
    );
  }
} finally {
  process.stderr.write = write;
  rmSync(work, { recursive: true, force: true });
}
