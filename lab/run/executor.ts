import { rm } from 'node:fs/promises';
import { checkManifest } from '../collect/manifest-check.js';
import { phasesWithinWall } from '../collect/phases.js';
import type { TrialOutcome } from '../collect/trial-output.js';
import { LabError, errorMessage } from '../errors.js';
import { REMOTE_ROOT } from '../paths.js';
import type { Trial } from '../plan/plan.js';
import type { JournalEntry, Sample } from '../record/schemas.js';
import type { HostSession } from '../ssh/session.js';
import { bashScriptCommand } from '../util/shell.js';

/** What the executor writes: the run record's trial side (RunRecord implements it). */
export interface TrialRecord {
  readonly runId: string;
  appendJournal(entry: Omit<JournalEntry, 'at'>): void;
  appendSamples(samples: readonly Sample[]): void;
  stagingDir(trialId: string): string;
  commitTrial(trialId: string): Promise<string>;
}

/** How one trial is run, besides the session: its environment, its time limit, how its output is read. */
export interface TrialSettings {
  env(trial: Trial): Record<string, string>;
  timeoutMs(trial: Trial): number;
  parse(dir: string, trial: Trial): TrialOutcome;
  /** How long a dropped host gets to answer again before its remaining trials are given up. */
  reconnectMs: number;
  say(message: string): void;
}

/** A host's standing during the run: once gone, its remaining trials fail with this reason. */
export interface HostStanding {
  gone?: string;
}

export interface TrialResult {
  ok: boolean;
  reason?: string;
  /** The trial's samples, as appended to the record (none when it failed). */
  samples: Sample[];
  guestSeconds?: number;
  wallSeconds: number;
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
 * Runs a trial on its host; its output folder comes back on stdout as one tar
 * stream, is unpacked beside its final place, checked against the guest's
 * MANIFEST and only then renamed into place: complete and verified, or absent.
 */
async function pullTrial(session: HostSession, record: TrialRecord, trial: Trial, settings: TrialSettings) {
  const staging = record.stagingDir(trial.id);
  await rm(staging, { recursive: true, force: true });
  const command = bashScriptCommand(settings.env(trial), `${REMOTE_ROOT}/guest/run-trial.sh`);
  await session.pull(command, staging, settings.timeoutMs(trial));
  const problems = await checkManifest(staging);
  if (problems.length) {
    throw new LabError(`pulled files do not match what the guest wrote: ${problems.join('; ')}`, {
      host: session.name,
      trial: trial.id,
    });
  }
  return record.commitTrial(trial.id);
}

type Attempt = { kind: 'measured'; outcome: TrialOutcome } | { kind: 'failed'; reason: string; retry: boolean };

/**
 * One attempt. A failure with the connection intact is the trial's; a dropped
 * connection leaves the outcome unknown (nothing of it was kept: samples are
 * written only after a verified pull), so after a reconnect it may run again.
 */
async function attempt(
  session: HostSession,
  record: TrialRecord,
  trial: Trial,
  settings: TrialSettings,
  standing: HostStanding,
): Promise<Attempt> {
  try {
    const dir = await pullTrial(session, record, trial, settings);
    return { kind: 'measured', outcome: settings.parse(dir, trial) };
  } catch (err) {
    if (isDiskFull(err)) throw err;
    const reason = errorMessage(err);
    if (await session.probe()) return { kind: 'failed', reason, retry: false };
    settings.say(`${trial.host}: connection lost during ${trial.id}; reconnecting`);
    try {
      await session.reconnect(Date.now() + settings.reconnectMs);
      settings.say(`${trial.host}: reconnected`);
      return { kind: 'failed', reason, retry: true };
    } catch (lost) {
      standing.gone = `host ${trial.host} stopped answering (${errorMessage(lost)})`;
      settings.say(`${trial.host}: unreachable; its remaining trials are marked failed, the other hosts go on`);
      return { kind: 'failed', reason: standing.gone, retry: false };
    }
  }
}

/**
 * Runs one trial to a journal state: started, then done (samples appended
 * first) or failed with the reason. A dropped connection gets one more
 * attempt after a reconnect; a host that does not come back is gone.
 * Throws only when the controller's disk is full (isDiskFull).
 */
export async function executeTrial(
  session: HostSession,
  record: TrialRecord,
  trial: Trial,
  settings: TrialSettings,
  standing: HostStanding,
): Promise<TrialResult> {
  const t0 = Date.now();
  record.appendJournal({ trial: trial.id, host: trial.host, state: 'started' });
  let result: Attempt = { kind: 'failed', reason: standing.gone ?? '', retry: false };
  for (let n = 1; !standing.gone; n++) {
    result = await attempt(session, record, trial, settings, standing);
    if (result.kind === 'measured' || !result.retry || n >= 2) break;
    record.appendJournal({ trial: trial.id, host: trial.host, state: 'started', reason: 'again: connection lost' });
  }
  const wallSeconds = (Date.now() - t0) / 1000;
  // Where the guest's time went; a file that does not hold up is dropped, said once, and the trial stands.
  const timing = phasesWithinWall(result.kind === 'measured' ? result.outcome.phases : undefined, wallSeconds);
  if (timing.phasesDropped)
    settings.say(`${trial.host}: ${trial.id}: ${timing.phasesDropped}; its time is not itemised`);
  if (result.kind === 'failed' || result.outcome.failures.length) {
    const reason = result.kind === 'failed' ? result.reason : result.outcome.failures.join('; ');
    const guestSeconds = result.kind === 'measured' ? result.outcome.guestSeconds : undefined;
    record.appendJournal({
      trial: trial.id,
      host: trial.host,
      state: 'failed',
      reason,
      guestSeconds,
      wallSeconds,
      ...timing,
    });
    return { ok: false, reason, samples: [], guestSeconds, wallSeconds };
  }
  const { samples, guestSeconds } = result.outcome;
  record.appendSamples(samples);
  record.appendJournal({
    trial: trial.id,
    host: trial.host,
    state: 'done',
    guestSeconds,
    wallSeconds,
    samples: samples.length,
    ...timing,
  });
  return { ok: true, samples, guestSeconds, wallSeconds };
}
