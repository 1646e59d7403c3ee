import { existsSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseTrialOutput } from '../collect/trial-output.js';
import type { LabDefinition } from '../definition/schema.js';
import { LabError, errorMessage } from '../errors.js';
import type { Plan, Trial } from '../plan/plan.js';
import { captureEnv, pushGuestFiles } from '../prepare/prepare.js';
import { Journal } from '../record/journal.js';
import { runFiles } from '../record/layout.js';
import type { Sample } from '../record/samples.js';
import { SCENARIOS } from '../scenarios/index.js';
import { connectHost } from '../ssh/connect.js';
import type { SshConnection } from '../ssh/transport.js';
import type { Inventory, InventoryHost } from '../targets/types.js';
import { appendLineSync, writeJson } from '../util/files.js';
import { HostLog } from '../util/log.js';
import { Progress, say } from './progress.js';
import { type StopReason, stopAfter } from './stop-rule.js';
import { trialEnv } from './trial-env.js';
import { executeTrial } from './trial.js';

export interface RunContext {
  runId: string;
  dir: string;
  lab: LabDefinition;
  inventory: Inventory;
  plan: Plan;
  imageTags: Record<string, string>;
  signal?: AbortSignal;
  /** Continuing an interrupted run: trials already done and their samples. */
  resume?: { done: ReadonlySet<string>; samples: readonly Sample[]; trialSeconds: number };
}

export interface RunSummary {
  runId: string;
  trials: number;
  done: number;
  failed: number;
  skipped: number;
  wallSeconds: number;
  /** Sum of guest scenario-script seconds, for the harness-overhead figure. */
  guestSeconds: number;
  /** Seconds spent connecting, pushing guest files and capturing env, before the first trial. */
  setupSeconds: number;
  failures: { trial: string; host: string; reason: string }[];
  /** Repetitions completed. */
  repetitions: number;
  /** What ended the run: the fixed count, a stop-rule condition, or an interruption. */
  stoppedBy?: StopReason;
  /** Widest compared interval at the last stop-rule check. */
  widestInterval?: number;
}

/**
 * The controller's own disk is full: a local fs error (node-tar keeps the
 * code too). Only the code counts: "No space left" in a message can come from
 * the guest (fio error 28, a guest tar), which is a failed trial, not ours.
 */
export function isDiskFull(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'ENOSPC';
}

/**
 * The controller's disk is full: stop the run. Finished trials are on disk and
 * in the journal; the trial in flight stays "started", so resume reruns it.
 */
function diskFull(ctx: RunContext, trial: Trial, err: unknown): LabError {
  return new LabError(
    `the results disk is full (${errorMessage(err).split('\n')[0]}). Nothing finished is lost. Free space under ${ctx.dir}, then continue with \`layerlab run --resume ${ctx.runId} --lab <file>\``,
    { host: trial.host, trial: trial.id, phase: 'collect' },
  );
}

/** How long a dropped host gets to answer again before its remaining trials are given up. */
const RECONNECT_MS = 60_000;

/** Runs the plan and collects every trial into the run folder. */
export async function executeRun(ctx: RunContext): Promise<RunSummary> {
  const files = runFiles(ctx.dir);
  const started = Date.now();
  const journal = new Journal(files.journal);
  writeFileSync(files.samples, '', { flag: 'a' });
  const logs = new Map(ctx.inventory.hosts.map((h) => [h.name, new HostLog(`${files.hostDir(h.name)}/ssh.log`)]));
  const hostLog = (name: string) => logs.get(name) as HostLog;
  const alreadyDone = ctx.resume?.done ?? new Set<string>();
  const summary: RunSummary = {
    runId: ctx.runId,
    trials: ctx.plan.trials.length,
    done: alreadyDone.size,
    failed: 0,
    skipped: 0,
    wallSeconds: 0,
    guestSeconds: 0,
    setupSeconds: 0,
    failures: [],
    repetitions: 0,
  };
  const connections = new Map<string, SshConnection>();
  const collected: Sample[] = [...(ctx.resume?.samples ?? [])];
  try {
    // Connect, refresh guest files and capture each host's environment, in parallel.
    await Promise.all(
      ctx.inventory.hosts.map(async (host) => {
        const conn = await connectHost(host, hostLog(host.name), Date.now() + 120_000);
        connections.set(host.name, conn);
        await pushGuestFiles(conn);
        // A resumed run keeps the environment captured at its start and adds the current one.
        const envDir = existsSync(files.envDir(host.name))
          ? `${files.envDir(host.name)}.resumed-${Date.now()}`
          : files.envDir(host.name);
        await captureEnv(conn, host, envDir);
      }),
    );
    summary.setupSeconds = (Date.now() - started) / 1000;

    const expected = new Map(
      ctx.plan.trials
        .filter((t) => !alreadyDone.has(t.id))
        .map((t) => [t.id, SCENARIOS[t.scenario].expectedSeconds(ctx.lab.scenarios[t.scenario] as never)]),
    );
    const parallelism = ctx.plan.mode === 'serial' ? 1 : ctx.inventory.hosts.length;
    const progress = new Progress(expected, parallelism);

    const hostsByName = new Map(ctx.inventory.hosts.map((h) => [h.name, h]));
    // Hosts that stopped answering: their remaining trials fail with this reason; the others go on.
    const unreachable = new Map<string, string>();

    /** After a dropped connection: reconnect (with backoff, bounded), or declare the host gone. */
    const reconnect = async (hostName: string): Promise<boolean> => {
      connections.get(hostName)?.close();
      connections.delete(hostName);
      const host = hostsByName.get(hostName) as InventoryHost;
      try {
        connections.set(hostName, await connectHost(host, hostLog(hostName), Date.now() + RECONNECT_MS));
        say(`${hostName}: reconnected`);
        return true;
      } catch (err) {
        unreachable.set(hostName, `host ${hostName} stopped answering (${errorMessage(err)})`);
        say(`${hostName}: unreachable; its remaining trials are marked failed, the other hosts go on`);
        return false;
      }
    };

    // Set when the run must stop at once (disk full): other hosts start no new trial.
    let halted = false;
    const runOne = (trial: Trial) =>
      runTrial(trial).catch((err: unknown) => {
        halted = true;
        throw isDiskFull(err) && !(err instanceof LabError) ? diskFull(ctx, trial, err) : err;
      });

    const runTrial = async (trial: Trial) => {
      if (ctx.signal?.aborted || halted) return;
      const scenario = SCENARIOS[trial.scenario];
      const params = ctx.lab.scenarios[trial.scenario] as never;
      const timeoutMs = (scenario.expectedSeconds(params) * 10 + 300) * 1000;
      progress.start(trial.host, trial.id);
      journal.append({ trial: trial.id, host: trial.host, state: 'started' });
      const t0 = Date.now();
      let failures: string[] = [];
      let samples = 0;
      let guestSeconds: number | undefined;
      for (let attempt = 1; ; attempt++) {
        const conn = connections.get(trial.host);
        const gone = unreachable.get(trial.host);
        if (gone || !conn) {
          failures = [gone ?? `no connection to ${trial.host}`];
          break;
        }
        try {
          const localDir = files.trialDir(trial.id);
          // LL_RUN labels what the trial creates in Docker (layerlab.run=<run-id>) beside the lab label.
          await executeTrial(
            conn,
            { ...trialEnv(trial, ctx.lab, ctx.imageTags), LL_RUN: ctx.runId },
            localDir,
            timeoutMs,
          );
          const outcome = parseTrialOutput(localDir, trial, ctx.runId);
          failures = outcome.failures;
          guestSeconds = outcome.guestSeconds;
          collected.push(...outcome.samples);
          if (outcome.samples.length) {
            appendLineSync(files.samples, outcome.samples.map((s) => JSON.stringify(s)).join('\n'));
          }
          samples = outcome.samples.length;
          break;
        } catch (err) {
          if (isDiskFull(err)) throw diskFull(ctx, trial, err);
          failures = [errorMessage(err)];
          if (await conn.probe()) break; // the trial failed; the connection is fine
          // The connection dropped mid-trial: its outcome is unknown and nothing of it was
          // kept (samples are written only after a verified pull). Reconnect, run it once more.
          say(`${trial.host}: connection lost during ${trial.id}; reconnecting`);
          if (!(await reconnect(trial.host))) {
            failures = [unreachable.get(trial.host) as string];
            break;
          }
          if (attempt >= 2) break;
          journal.append({ trial: trial.id, host: trial.host, state: 'started', reason: 'again: connection lost' });
        }
      }
      const wallSeconds = (Date.now() - t0) / 1000;
      summary.guestSeconds += guestSeconds ?? 0;
      if (failures.length === 0) {
        summary.done++;
        journal.append({ trial: trial.id, host: trial.host, state: 'done', guestSeconds, wallSeconds, samples });
        progress.finish(trial.host, trial.id, true, `(${wallSeconds.toFixed(1)} s, ${samples} samples)`);
      } else {
        summary.failed++;
        const reason = failures.join('; ');
        summary.failures.push({ trial: trial.id, host: trial.host, reason });
        journal.append({ trial: trial.id, host: trial.host, state: 'failed', reason, guestSeconds, wallSeconds });
        progress.finish(trial.host, trial.id, false, reason);
      }
    };

    // Repetition by repetition, so that a stop rule can end the run between them.
    const trialsStarted = Date.now();
    for (let rep = 1; rep <= ctx.lab.repetitions.max; rep++) {
      const trials = ctx.plan.trials.filter((t) => t.rep === rep && !alreadyDone.has(t.id));
      if (ctx.plan.mode === 'serial') {
        for (const trial of trials) await runOne(trial);
      } else {
        await Promise.all(
          ctx.inventory.hosts.map(async (host) => {
            for (const trial of trials.filter((t) => t.host === host.name)) await runOne(trial);
          }),
        );
      }
      if (ctx.signal?.aborted) {
        summary.stoppedBy = 'interrupted';
        break;
      }
      summary.repetitions = rep;
      // A resumed run's budget counts the trial time spent before the interruption too.
      const spentMs = Date.now() - trialsStarted + (ctx.resume?.trialSeconds ?? 0) * 1000;
      const decision = stopAfter(ctx.lab, rep, spentMs, collected);
      if (decision.widest !== undefined) summary.widestInterval = decision.widest;
      if (decision.stop) {
        summary.stoppedBy = decision.reason;
        if (rep < ctx.lab.repetitions.max) say(`stopping after repetition ${rep}: ${decision.reason}`);
        break;
      }
    }
    summary.skipped = ctx.plan.trials.length - summary.done - summary.failed;
  } finally {
    for (const conn of connections.values()) conn.close();
    await Promise.all([...logs.values()].map((l) => l.close()));
    // Unpacking space of trials (empty unless an attempt was cut short): never a result.
    await rm(join(ctx.dir, 'trials', '.partial'), { recursive: true, force: true }).catch(() => undefined);
    summary.wallSeconds = (Date.now() - started) / 1000;
    // summary.json is derived (the journal is the record); on a full disk it may not fit.
    await writeJson(files.summary, summary).catch((err) => say(`summary.json not written: ${errorMessage(err)}`));
  }
  if (summary.failed) say(`${summary.failed} of ${summary.trials} trial(s) failed; see journal.ndjson and the report`);
  return summary;
}
