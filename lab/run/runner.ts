import { writeFileSync } from 'node:fs';
import type { LabDefinition } from '../definition/schema.js';
import { errorMessage } from '../errors.js';
import { REMOTE_ENV, REMOTE_ROOT } from '../paths.js';
import type { Plan, Trial } from '../plan/plan.js';
import { pushGuestFiles } from '../prepare/prepare.js';
import { SCENARIOS } from '../scenarios/index.js';
import { connectHost } from '../ssh/connect.js';
import type { SshConnection } from '../ssh/transport.js';
import type { Inventory } from '../targets/types.js';
import { appendLineSync, writeJson } from '../util/files.js';
import { HostLog } from '../util/log.js';
import { envCommand, shellQuote } from '../util/shell.js';
import { Journal } from './journal.js';
import { Progress, say } from './progress.js';
import { runFiles } from './run-dir.js';
import { type StopReason, stopAfter } from './stop-rule.js';
import { type Sample, analyzeTrialDir, executeTrial, trialEnv } from './trial.js';

export interface RunContext {
  runId: string;
  dir: string;
  lab: LabDefinition;
  inventory: Inventory;
  plan: Plan;
  imageTags: Record<string, string>;
  signal?: AbortSignal;
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

/** Runs the plan and collects every trial into the run folder. */
export async function executeRun(ctx: RunContext): Promise<RunSummary> {
  const files = runFiles(ctx.dir);
  const started = Date.now();
  const journal = new Journal(files.journal);
  writeFileSync(files.samples, '', { flag: 'a' });
  const logs = new Map(ctx.inventory.hosts.map((h) => [h.name, new HostLog(`${files.hostDir(h.name)}/ssh.log`)]));
  const hostLog = (name: string) => logs.get(name) as HostLog;
  const summary: RunSummary = {
    runId: ctx.runId,
    trials: ctx.plan.trials.length,
    done: 0,
    failed: 0,
    skipped: 0,
    wallSeconds: 0,
    guestSeconds: 0,
    setupSeconds: 0,
    failures: [],
    repetitions: 0,
  };
  const connections = new Map<string, SshConnection>();
  const collected: Sample[] = [];
  try {
    // Connect, refresh guest files and capture each host's environment, in parallel.
    await Promise.all(
      ctx.inventory.hosts.map(async (host) => {
        const conn = await connectHost(host, hostLog(host.name), Date.now() + 120_000);
        connections.set(host.name, conn);
        await pushGuestFiles(conn);
        // env.sh writes files only; its folder comes back as tar in the same round trip.
        const capture = envCommand({ LL_DATA_DISK: host.dataDisk }, [
          'bash',
          `${REMOTE_ROOT}/guest/env.sh`,
          REMOTE_ENV,
        ]);
        await conn.pullCommand(`${capture} >&2 && tar -cf - -C ${shellQuote(REMOTE_ENV)} .`, files.envDir(host.name));
      }),
    );
    summary.setupSeconds = (Date.now() - started) / 1000;

    const expected =
      ctx.plan.trials.reduce(
        (s, t) => s + SCENARIOS[t.scenario].expectedSeconds(ctx.lab.scenarios[t.scenario] as never),
        0,
      ) / Math.max(1, ctx.plan.trials.length);
    const parallelism = ctx.plan.mode === 'serial' ? 1 : ctx.inventory.hosts.length;
    const progress = new Progress(ctx.plan.trials.length, expected, parallelism);

    const runOne = async (trial: Trial) => {
      if (ctx.signal?.aborted) return;
      const conn = connections.get(trial.host) as SshConnection;
      const scenario = SCENARIOS[trial.scenario];
      const params = ctx.lab.scenarios[trial.scenario] as never;
      const timeoutMs = (scenario.expectedSeconds(params) * 10 + 300) * 1000;
      progress.start(trial.host, trial.id);
      journal.append({ trial: trial.id, host: trial.host, state: 'started' });
      const t0 = Date.now();
      let failures: string[];
      let samples = 0;
      let guestSeconds: number | undefined;
      try {
        const localDir = files.trialDir(trial.id);
        await executeTrial(conn, trialEnv(trial, ctx.lab, ctx.imageTags), localDir, timeoutMs);
        const outcome = analyzeTrialDir(localDir, trial, ctx.runId);
        failures = outcome.failures;
        guestSeconds = outcome.guestSeconds;
        collected.push(...outcome.samples);
        if (outcome.samples.length) {
          appendLineSync(files.samples, outcome.samples.map((s) => JSON.stringify(s)).join('\n'));
        }
        samples = outcome.samples.length;
      } catch (err) {
        failures = [errorMessage(err)];
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
      const trials = ctx.plan.trials.filter((t) => t.rep === rep);
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
      const decision = stopAfter(ctx.lab, rep, Date.now() - trialsStarted, collected);
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
    summary.wallSeconds = (Date.now() - started) / 1000;
    await writeJson(files.summary, summary);
  }
  if (summary.failed) say(`${summary.failed} of ${summary.trials} trial(s) failed; see journal.ndjson and the report`);
  return summary;
}
