import type { LabDefinition } from '../definition/schema.js';
import { LabError, errorMessage } from '../errors.js';
import type { Plan, Trial } from '../plan/plan.js';
import type { ResumePoint } from '../record/record.js';
import type { RunSummary, Sample } from '../record/schemas.js';
import type { HostSession, OpenSession } from '../ssh/session.js';
import type { InventoryHost } from '../targets/types.js';
import { type HostStanding, type TrialRecord, type TrialSettings, executeTrial, isDiskFull } from './executor.js';
import { Progress } from './progress.js';
import { stopAfter } from './stop-rule.js';

/** What the scheduler writes besides trials: the summary and the staging space (RunRecord implements it). */
export interface RunRecordSink extends TrialRecord {
  readonly dir: string;
  writeSummary(summary: RunSummary): Promise<void>;
  clearStaging(): Promise<void>;
}

export interface ScheduleInput {
  record: RunRecordSink;
  lab: LabDefinition;
  hosts: readonly InventoryHost[];
  plan: Plan;
  /** How each trial runs (environment, time limit, parser) and how the run talks. */
  settings: TrialSettings;
  /** Opens a host's session; `setUp` then readies it for trials (guest files, environment capture). */
  openSession: OpenSession;
  setUp(session: HostSession, host: InventoryHost): Promise<void>;
  /** Run at the end on every host that was readied, whatever happened: what the run kept there goes. */
  tearDown?(session: HostSession, host: InventoryHost): Promise<void>;
  /** Expected guest seconds of a trial, for progress and ETA. */
  expectedSeconds(trial: Trial): number;
  signal?: AbortSignal;
  /** Continuing an interrupted run: trials already done and their samples. */
  resume?: ResumePoint;
  /** How long a host gets to answer SSH at the start of the run. */
  connectMs?: number;
}

/** The run folder's disk is full: stop. Finished trials are on disk and in the journal; resume reruns the rest. */
function diskFull(input: ScheduleInput, trial: Trial, err: unknown): LabError {
  return new LabError(
    `the results disk is full (${errorMessage(err).split('\n')[0]}). Nothing finished is lost. Free space under ${input.record.dir}, then continue with \`layerlab run --resume ${input.record.runId} --lab <file>\``,
    { host: trial.host, trial: trial.id, phase: 'collect' },
  );
}

/** Mutable state of one run, owned by the scheduler and passed to its steps. */
interface RunState {
  summary: RunSummary;
  sessions: Map<string, HostSession>;
  standing: Map<string, HostStanding>;
  collected: Sample[];
  /** Set when the run must stop at once (disk full): no host starts a new trial. */
  halted: boolean;
}

function newState(input: ScheduleInput): RunState {
  return {
    summary: {
      runId: input.record.runId,
      trials: input.plan.trials.length,
      done: input.resume?.done.size ?? 0,
      failed: 0,
      skipped: 0,
      wallSeconds: 0,
      guestSeconds: 0,
      setupSeconds: 0,
      failures: [],
      repetitions: 0,
    },
    sessions: new Map(),
    standing: new Map(input.hosts.map((h) => [h.name, {}])),
    collected: [...(input.resume?.samples ?? [])],
    halted: false,
  };
}

/** Connects to every host and readies it, in parallel; any host that cannot be readied fails the run. */
async function openAll(input: ScheduleInput, state: RunState): Promise<void> {
  const deadline = Date.now() + (input.connectMs ?? 120_000);
  await Promise.all(
    input.hosts.map(async (host) => {
      const session = await input.openSession(host, deadline);
      state.sessions.set(host.name, session);
      await input.setUp(session, host);
    }),
  );
}

/** The run's end on every host that has a session: a host that fails it is named, and the run's result stands. */
async function tearDownAll(input: ScheduleInput, state: RunState): Promise<void> {
  const { tearDown } = input;
  if (!tearDown) return;
  await Promise.all(
    input.hosts.map(async (host) => {
      const session = state.sessions.get(host.name);
      if (!session) return;
      await tearDown(session, host).catch((err) =>
        input.settings.say(`${host.name}: the end of the run did not finish: ${errorMessage(err).split('\n')[0]}`),
      );
    }),
  );
}

/** Runs one trial and books its result; a full disk halts the run (other hosts start nothing new). */
async function runOne(input: ScheduleInput, state: RunState, progress: Progress, trial: Trial): Promise<void> {
  if (input.signal?.aborted || state.halted) return;
  const session = state.sessions.get(trial.host) as HostSession;
  const standing = state.standing.get(trial.host) as HostStanding;
  progress.start(trial.host, trial.id);
  let result: Awaited<ReturnType<typeof executeTrial>>;
  try {
    result = await executeTrial(session, input.record, trial, input.settings, standing);
  } catch (err) {
    state.halted = true;
    throw isDiskFull(err) && !(err instanceof LabError) ? diskFull(input, trial, err) : err;
  }
  const { summary } = state;
  summary.guestSeconds += result.guestSeconds ?? 0;
  if (result.ok) {
    summary.done++;
    // Kept in memory too: the stop rule reads every sample so far after each repetition.
    state.collected.push(...result.samples);
    progress.finish(
      trial.host,
      trial.id,
      true,
      `(${result.wallSeconds.toFixed(1)} s, ${result.samples.length} samples)`,
    );
  } else {
    summary.failed++;
    summary.failures.push({ trial: trial.id, host: trial.host, reason: result.reason ?? '' });
    progress.finish(trial.host, trial.id, false, result.reason ?? '');
  }
}

/** One repetition: serial runs the plan's order; parallel runs each host's trials in order, hosts at once. */
async function runRepetition(input: ScheduleInput, state: RunState, progress: Progress, trials: Trial[]) {
  if (input.plan.mode === 'serial') {
    for (const trial of trials) await runOne(input, state, progress, trial);
    return;
  }
  await Promise.all(
    input.hosts.map(async (host) => {
      for (const trial of trials.filter((t) => t.host === host.name)) await runOne(input, state, progress, trial);
    }),
  );
}

/** Repetition by repetition, so that the stop rule (or Ctrl-C) can end the run between them. */
async function runRepetitions(input: ScheduleInput, state: RunState): Promise<void> {
  const done = input.resume?.done ?? new Set<string>();
  const left = input.plan.trials.filter((t) => !done.has(t.id));
  const parallelism = input.plan.mode === 'serial' ? 1 : input.hosts.length;
  const progress = new Progress(new Map(left.map((t) => [t.id, input.expectedSeconds(t)])), parallelism);
  const started = Date.now();
  const { summary } = state;
  for (let rep = 1; rep <= input.lab.repetitions.max; rep++) {
    await runRepetition(
      input,
      state,
      progress,
      left.filter((t) => t.rep === rep),
    );
    if (input.signal?.aborted) {
      summary.stoppedBy = 'interrupted';
      break;
    }
    summary.repetitions = rep;
    // A resumed run's budget counts the trial time spent before the interruption too.
    const spentMs = Date.now() - started + (input.resume?.trialSeconds ?? 0) * 1000;
    const decision = stopAfter(input.lab, rep, spentMs, state.collected);
    if (decision.widest !== undefined) summary.widestInterval = decision.widest;
    if (decision.stop) {
      summary.stoppedBy = decision.reason;
      if (rep < input.lab.repetitions.max) input.settings.say(`stopping after repetition ${rep}: ${decision.reason}`);
      break;
    }
  }
  summary.skipped = summary.trials - summary.done - summary.failed;
}

/**
 * Runs the plan: connects and readies every host, runs the trials in the
 * plan's order (serially, or each host's in order with hosts in parallel),
 * asks the stop rule after each repetition, and stops between trials on
 * Ctrl-C (the signal) or at once when the results disk is full. Always closes
 * the sessions and writes summary.json.
 */
export async function schedule(input: ScheduleInput): Promise<RunSummary> {
  const started = Date.now();
  const state = newState(input);
  try {
    await openAll(input, state);
    state.summary.setupSeconds = (Date.now() - started) / 1000;
    await runRepetitions(input, state);
  } finally {
    await tearDownAll(input, state);
    await Promise.all([...state.sessions.values()].map((s) => s.close().catch(() => undefined)));
    await input.record.clearStaging();
    state.summary.wallSeconds = (Date.now() - started) / 1000;
    // summary.json is derived (the journal is the record); on a full disk it may not fit.
    await input.record
      .writeSummary(state.summary)
      .catch((err) => input.settings.say(`summary.json not written: ${errorMessage(err)}`));
  }
  const { summary } = state;
  if (summary.failed)
    input.settings.say(`${summary.failed} of ${summary.trials} trial(s) failed; see journal.ndjson and the report`);
  return summary;
}
