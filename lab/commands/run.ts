import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { LabDefinition } from '../definition/schema.js';
import { UserError } from '../errors.js';
import { PACKAGE_ROOT, resultsRoot } from '../paths.js';
import { type Plan, makePlan } from '../plan/plan.js';
import { Journal } from '../record/journal.js';
import { createRunDir, runFiles, runLockPath } from '../record/layout.js';
import { resolveRunDir } from '../record/layout.js';
import { readSamples, writeSamples } from '../record/samples.js';
import { say } from '../run/progress.js';
import { type RunSummary, executeRun } from '../run/runner.js';
import type { TargetOptions } from '../targets/driver.js';
import { type Inventory, publicInventory } from '../targets/types.js';
import { toolImageTag } from '../toolimages/toolimages.js';
import { writeJson } from '../util/files.js';
import { withLock } from '../util/lock.js';
import { removeOwnedChild } from '../util/owned-dir.js';
import { labLog } from './context.js';
import { buildToolImages, driverFor, prepareHosts, toolImageNames } from './up.js';

function gitRevision(): string {
  try {
    const rev = execFileSync('git', ['-C', PACKAGE_ROOT, 'rev-parse', '--short=12', 'HEAD'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim();
    const dirty = execFileSync('git', ['-C', PACKAGE_ROOT, 'status', '--porcelain', '--untracked-files=no'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim();
    return dirty ? `${rev}-dirty` : rev;
  } catch {
    return 'unknown';
  }
}

function qemuVersion(): string {
  try {
    return (
      execFileSync('qemu-system-x86_64', ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .split('\n')[0] ?? ''
    );
  } catch {
    return 'unknown';
  }
}

export interface RunResult {
  runId: string;
  dir: string;
  summary: RunSummary;
}

/** The lab's hosts, prepared (targets that do not track it are checked, cheaply). */
async function attachPrepared(lab: LabDefinition, opts: TargetOptions): Promise<Inventory> {
  const attached = await driverFor(lab).attach(lab, opts);
  if (attached.inventory.hosts.some((h) => !attached.isPrepared(h.name))) {
    const log = labLog(lab.name);
    try {
      await prepareHosts(lab, attached, await buildToolImages(lab, log), Date.now() + 5 * 60_000);
    } finally {
      await log.close();
    }
  }
  return attached.inventory;
}

async function currentImageTags(lab: LabDefinition): Promise<Record<string, string>> {
  const tags: Record<string, string> = {};
  for (const name of toolImageNames(lab)) tags[name] = await toolImageTag(name);
  return tags;
}

/** Runs the lab's plan on hosts that are up, into a new results folder. */
export async function run(
  lab: LabDefinition,
  labFile: string,
  signal?: AbortSignal,
  opts: TargetOptions = {},
): Promise<RunResult> {
  const inventory = await attachPrepared(lab, opts);
  const { runId, dir } = createRunDir(resultsRoot(), lab.name);
  // A `run --resume` of this run while it is still going would interleave its journal.
  return withLock(runLockPath(dir), `run ${runId}`, () => runInto(lab, labFile, inventory, runId, dir, signal));
}

async function runInto(
  lab: LabDefinition,
  labFile: string,
  inventory: Inventory,
  runId: string,
  dir: string,
  signal?: AbortSignal,
): Promise<RunResult> {
  const files = runFiles(dir);
  const plan = makePlan(lab);
  const imageTags = await currentImageTags(lab);
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
  await writeJson(files.manifest, {
    runId,
    startedAt: new Date().toISOString(),
    labFile,
    lab,
    inventory: publicInventory(inventory),
    plan: { seed: plan.seed, mode: plan.mode },
    gitRevision: gitRevision(),
    versions: { layerlab: pkg.version, node: process.version, qemu: qemuVersion() },
    toolImages: imageTags,
  });
  await writeJson(files.plan, plan);
  say(`run ${runId}: ${plan.trials.length} trials (${plan.mode}) -> ${dir}`);
  const summary = await executeRun({ runId, dir, lab, inventory, plan, imageTags, signal });
  return { runId, dir, summary };
}

/** What must not change between a run's start and its resumption. */
function measuredShape(lab: unknown): string {
  const { hosts, scenarios, mounts, scenarioMounts, repetitions, seed } = JSON.parse(JSON.stringify(lab)) as Record<
    string,
    unknown
  >;
  // Runs recorded before scenarioMounts existed narrowed nothing.
  return JSON.stringify({ hosts, scenarios, mounts, scenarioMounts: scenarioMounts ?? {}, repetitions, seed });
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
  const dir = resolveRunDir(runRef);
  const runId = basename(dir);
  return withLock(runLockPath(dir), `run ${runId}`, () => resumeInto(lab, dir, runId, signal, opts));
}

async function resumeInto(
  lab: LabDefinition,
  dir: string,
  runId: string,
  signal: AbortSignal | undefined,
  opts: TargetOptions,
): Promise<RunResult> {
  const files = runFiles(dir);
  const manifest = JSON.parse(readFileSync(files.manifest, 'utf8')) as Record<string, unknown> & {
    lab: LabDefinition;
    labFile: string;
    toolImages: Record<string, string>;
    resumes?: unknown[];
  };
  if (manifest.lab.name !== lab.name)
    throw new UserError(`run ${runId} is of lab ${manifest.lab.name}, not ${lab.name}`);
  if (measuredShape(manifest.lab) !== measuredShape(lab)) {
    throw new UserError(
      `the lab definition changed since run ${runId} started (hosts, scenarios, mounts, scenarioMounts, repetitions or seed); resume with the one it started with (${manifest.labFile})`,
    );
  }
  const previous = existsSync(files.summary)
    ? (JSON.parse(readFileSync(files.summary, 'utf8')) as RunSummary)
    : undefined;
  if (previous && previous.stoppedBy !== 'interrupted' && previous.failed === 0 && previous.skipped === 0) {
    throw new UserError(`run ${runId} is complete (ended by ${previous.stoppedBy}); nothing to resume`);
  }
  const imageTags = await currentImageTags(lab);
  if (JSON.stringify(imageTags) !== JSON.stringify(manifest.toolImages)) {
    throw new UserError(`the tool images changed since run ${runId} started; its numbers would mix two tool builds`);
  }
  const plan = JSON.parse(readFileSync(files.plan, 'utf8')) as Plan;
  const states = Journal.finalStates(Journal.read(files.journal));
  const done = new Set([...states.values()].filter((e) => e.state === 'done').map((e) => e.trial));
  const trialSeconds = [...states.values()].reduce(
    (sum, e) => sum + (e.state === 'done' ? (e.wallSeconds ?? 0) : 0),
    0,
  );
  // Samples of a trial count only once its journal line says done.
  const samples = readSamples(files.samples).filter((s) => done.has(s.trial));
  await writeSamples(files.samples, samples);
  for (const trial of plan.trials) if (!done.has(trial.id)) await removeOwnedChild(join(dir, 'trials'), trial.id);
  await removeOwnedChild(join(dir, 'trials'), '.partial');

  const inventory = await attachPrepared(lab, opts);
  await writeJson(files.manifest, {
    ...manifest,
    resumes: [
      ...(manifest.resumes ?? []),
      { at: new Date().toISOString(), inventory: publicInventory(inventory), gitRevision: gitRevision() },
    ],
  });
  say(`resuming run ${runId}: ${done.size} of ${plan.trials.length} trials done; the rest run now -> ${dir}`);
  const summary = await executeRun({
    runId,
    dir,
    lab,
    inventory,
    plan,
    imageTags,
    signal,
    resume: { done, samples, trialSeconds },
  });
  return { runId, dir, summary };
}
