import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LabDefinition } from '../definition/schema.js';
import { PACKAGE_ROOT, resultsRoot } from '../paths.js';
import { makePlan } from '../plan/plan.js';
import { say } from '../run/progress.js';
import { createRunDir, runFiles } from '../run/run-dir.js';
import { type RunSummary, executeRun } from '../run/runner.js';
import type { TargetOptions } from '../targets/driver.js';
import { publicInventory } from '../targets/types.js';
import { toolImageTag } from '../toolimages/toolimages.js';
import { writeJson } from '../util/files.js';
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

/** Runs the lab's plan on hosts that are up, into a new results folder. */
export async function run(
  lab: LabDefinition,
  labFile: string,
  signal?: AbortSignal,
  opts: TargetOptions = {},
): Promise<RunResult> {
  const attached = await driverFor(lab).attach(lab, opts);
  const { inventory } = attached;
  if (inventory.hosts.some((h) => !attached.isPrepared(h.name))) {
    const log = labLog(lab.name);
    try {
      await prepareHosts(lab, attached, await buildToolImages(lab, log), Date.now() + 5 * 60_000);
    } finally {
      await log.close();
    }
  }
  const { runId, dir } = createRunDir(resultsRoot(), lab.name);
  const files = runFiles(dir);
  const plan = makePlan(lab);
  const imageTags: Record<string, string> = {};
  for (const name of toolImageNames(lab)) imageTags[name] = await toolImageTag(name);
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
