import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTAINER_NETWORK } from '../catalog.js';
import { parseTrialOutput } from '../collect/trial-output.js';
import type { LabDefinition } from '../definition/schema.js';
import { UserError } from '../errors.js';
import { PACKAGE_ROOT, REMOTE_ROOT, resultsRoot } from '../paths.js';
import { type Plan, makePlan, runnablePlan } from '../plan/plan.js';
import { resolveRunDir } from '../record/layout.js';
import { type ResumePoint, RunRecord } from '../record/record.js';
import type { RunSummary } from '../record/schemas.js';
import { schedule } from '../run/scheduler.js';
import { trialEnv } from '../run/trial-env.js';
import { boundScenario } from '../scenarios/index.js';
import { type HostSession, sshSessions } from '../ssh/session.js';
import type { TargetOptions } from '../targets/driver.js';
import { type Inventory, publicInventory } from '../targets/types.js';
import { withLock } from '../util/lock.js';
import { say } from '../util/log.js';
import { envCommand } from '../util/shell.js';
import { captureEnvFor } from './capture-env.js';
import { attachPrepared } from './prepare.js';
import { currentImageTags } from './tool-images.js';

/** How long a dropped host gets to answer again before its remaining trials are given up. */
const RECONNECT_MS = 60_000;

export interface RunResult {
  runId: string;
  dir: string;
  summary: RunSummary;
}

function commandLine(file: string, args: string[]): string {
  try {
    return execFileSync(file, args, { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return '';
  }
}

/** The checkout's revision, "-dirty" when tracked files differ from it. */
function gitRevision(): string {
  const rev = commandLine('git', ['-C', PACKAGE_ROOT, 'rev-parse', '--short=12', 'HEAD']);
  if (!rev) return 'unknown';
  const dirty = commandLine('git', ['-C', PACKAGE_ROOT, 'status', '--porcelain', '--untracked-files=no']);
  return dirty ? `${rev}-dirty` : rev;
}

function versions(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
  const qemu = commandLine('qemu-system-x86_64', ['--version'])?.split('\n')[0] || 'unknown';
  return { layerlab: pkg.version, node: process.version, qemu };
}

/**
 * Removes what a scenario's `container: kept` keeps on a host across its
 * cells' trials (guest/drop-kept.sh): at the run's start, so that nothing of
 * an interrupted run is reused, and at its end.
 */
function dropKept(session: HostSession, lab: LabDefinition): Promise<void> {
  return session.exec(envCommand({ LL_LAB: lab.name }, ['bash', `${REMOTE_ROOT}/guest/drop-kept.sh`]), {
    timeoutMs: 5 * 60_000,
  });
}

/** Runs the plan of `record` on `inventory`'s hosts over SSH: the scheduler with the real sessions. */
function runPlan(
  record: RunRecord,
  plan: Plan,
  lab: LabDefinition,
  inventory: Inventory,
  imageTags: Record<string, string>,
  signal: AbortSignal | undefined,
  resume?: ResumePoint,
): Promise<RunSummary> {
  return schedule({
    record,
    lab,
    hosts: inventory.hosts,
    plan,
    settings: {
      // LL_RUN labels what the trial creates in Docker (layerlab.run=<run-id>) beside the lab label.
      env: (trial) => ({ ...trialEnv(trial, lab, imageTags), LL_RUN: record.runId }),
      timeoutMs: (trial) => (boundScenario(lab, trial.scenario).expectedSeconds() * 10 + 300) * 1000,
      parse: (dir, trial) => parseTrialOutput(dir, trial, record.runId),
      reconnectMs: RECONNECT_MS,
      say,
    },
    openSession: sshSessions((host) => record.hostLogPath(host)),
    setUp: async (session, host) => {
      await captureEnvFor(session, host, record.newEnvDir(host.name));
      await dropKept(session, lab);
    },
    tearDown: (session) => dropKept(session, lab),
    expectedSeconds: (trial) => boundScenario(lab, trial.scenario).expectedSeconds(),
    signal,
    resume,
  });
}

/** The run phase: the lab's plan on hosts that are up (prepared first if needed), into a new run folder. */
export async function startRun(
  lab: LabDefinition,
  labFile: string,
  signal?: AbortSignal,
  opts: TargetOptions = {},
): Promise<RunResult> {
  const inventory = await attachPrepared(lab, opts);
  const plan = makePlan(lab);
  const imageTags = await currentImageTags(lab);
  const fields = {
    startedAt: new Date().toISOString(),
    labFile,
    lab,
    inventory: publicInventory(inventory),
    containerNetwork: CONTAINER_NETWORK[lab.target.kind],
    plan: { seed: plan.seed, mode: plan.mode },
    gitRevision: gitRevision(),
    versions: versions(),
    toolImages: imageTags,
  };
  const record = await RunRecord.create(resultsRoot(), lab.name, fields, plan);
  // A `run --resume` of this run while it is still going would interleave its journal.
  return withLock(record.lockPath, `run ${record.runId}`, async () => {
    say(`run ${record.runId}: ${plan.trials.length} trials (${plan.mode}) -> ${record.dir}`);
    const summary = await runPlan(record, plan, lab, inventory, imageTags, signal);
    return { runId: record.runId, dir: record.dir, summary };
  });
}

/** What must not change between a run's start and its resumption. */
function measuredShape(lab: unknown): string {
  const { hosts, scenarios, mounts, scenarioMounts, scenarioRepetitions, repetitions, seed } = JSON.parse(
    JSON.stringify(lab),
  ) as Record<string, unknown>;
  // Runs recorded before scenarioMounts or scenarioRepetitions existed narrowed nothing.
  return JSON.stringify({
    hosts,
    scenarios,
    mounts,
    scenarioMounts: scenarioMounts ?? {},
    scenarioRepetitions: scenarioRepetitions ?? {},
    repetitions,
    seed,
  });
}

/** Refuses a resumption that would mix two experiments or that has nothing to do. */
async function checkResumable(record: RunRecord, lab: LabDefinition): Promise<Record<string, string>> {
  const { manifest, runId } = record;
  if (manifest.lab.name !== lab.name)
    throw new UserError(`run ${runId} is of lab ${manifest.lab.name}, not ${lab.name}`);
  if (measuredShape(manifest.lab) !== measuredShape(lab)) {
    throw new UserError(
      `the lab definition changed since run ${runId} started (hosts, scenarios, mounts, scenarioMounts, scenarioRepetitions, repetitions or seed); resume with the one it started with (${manifest.labFile})`,
    );
  }
  const previous = record.summary();
  if (previous && previous.stoppedBy !== 'interrupted' && previous.failed === 0 && previous.skipped === 0) {
    throw new UserError(`run ${runId} is complete (ended by ${previous.stoppedBy}); nothing to resume`);
  }
  const imageTags = await currentImageTags(lab);
  if (JSON.stringify(imageTags) !== JSON.stringify(manifest.toolImages)) {
    throw new UserError(`the tool images changed since run ${runId} started; its numbers would mix two tool builds`);
  }
  return imageTags;
}

/**
 * Continues an interrupted run in its own folder: done trials stay, a trial
 * that was in flight (or failed) is discarded and run again, so the result
 * has the trial set of an uninterrupted run and counts nothing twice.
 */
export async function resumeRun(
  lab: LabDefinition,
  runRef: string,
  signal?: AbortSignal,
  opts: TargetOptions = {},
): Promise<RunResult> {
  const record = RunRecord.open(resolveRunDir(runRef));
  return withLock(record.lockPath, `run ${record.runId}`, async () => {
    const imageTags = await checkResumable(record, lab);
    const plan = runnablePlan(record.plan, record.runId);
    const resume = await record.resumePoint();
    const inventory = await attachPrepared(lab, opts);
    await record.addResume({
      at: new Date().toISOString(),
      inventory: publicInventory(inventory),
      gitRevision: gitRevision(),
    });
    say(
      `resuming run ${record.runId}: ${resume.done.size} of ${plan.trials.length} trials done; the rest run now -> ${record.dir}`,
    );
    const summary = await runPlan(record, plan, lab, inventory, imageTags, signal, resume);
    return { runId: record.runId, dir: record.dir, summary };
  });
}
