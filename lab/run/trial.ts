import { existsSync, readFileSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { LabDefinition } from '../definition/schema.js';
import { LabError } from '../errors.js';
import { REMOTE_ROOT, REMOTE_TRIALS } from '../paths.js';
import type { Trial } from '../plan/plan.js';
import { SCENARIOS } from '../scenarios/index.js';
import type { ParseResult } from '../scenarios/types.js';
import type { SshConnection } from '../ssh/transport.js';
import { type NdjsonWarn, parseNdjson, writeFileAtomic } from '../util/files.js';
import { printable } from '../util/safe-text.js';
import { envCommand } from '../util/shell.js';
import { checkManifest } from './manifest-check.js';
import { say } from './progress.js';

/** The labels every sample has; any other key is a scenario label (fio: job, direction). */
export const CORE_LABELS = [
  'run',
  'host',
  'profile',
  'scenario',
  'mount',
  'rep',
  'trial',
  'metric',
  'value',
  'unit',
  'timestamp',
] as const;
const CORE_SET = new Set<string>(CORE_LABELS);

/** A sample's scenario labels, in the order the parser wrote them. */
export function scenarioLabels(sample: Sample): [string, string | number][] {
  return Object.entries(sample).filter(([key]) => !CORE_SET.has(key));
}

/**
 * Reads samples.ndjson (empty when it does not exist yet). A torn last line
 * (a crash or a full disk mid-append) is skipped with a warning; a bad line
 * elsewhere throws naming file and line.
 */
export function readSamples(path: string, warn: NdjsonWarn = say): Sample[] {
  if (!existsSync(path)) return [];
  return parseNdjson<Sample>(readFileSync(path, 'utf8'), path, warn);
}

/** Rewrites samples.ndjson as a whole, atomically. */
export function writeSamples(path: string, samples: readonly Sample[]): Promise<void> {
  return writeFileAtomic(path, samples.map((s) => `${JSON.stringify(s)}\n`).join(''));
}

/** One line of samples.ndjson. */
export interface Sample {
  run: string;
  host: string;
  profile: string;
  scenario: string;
  mount: string;
  rep: number;
  trial: string;
  metric: string;
  value: number;
  unit: string;
  timestamp: string;
  /** Scenario labels (fio: job, direction). */
  [label: string]: string | number;
}

export interface TrialMeta {
  start: string;
  end: string;
  exit_status: string;
  loadavg_before: string;
  loadavg_after: string;
  steal_ticks_before: string;
  steal_ticks_after: string;
  clk_tck: string;
}

const META_KEYS = [
  'start',
  'end',
  'exit_status',
  'loadavg_before',
  'loadavg_after',
  'steal_ticks_before',
  'steal_ticks_after',
  'clk_tck',
] as const;

/** The fields of a guest's meta.json, each as text whatever type the guest sent ('' when absent). */
function trialMeta(value: Record<string, unknown>): TrialMeta {
  const text = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));
  const meta = Object.fromEntries(META_KEYS.map((key) => [key, text(value[key])]));
  return meta as Record<(typeof META_KEYS)[number], string>;
}

export interface TrialOutcome {
  ok: boolean;
  samples: Sample[];
  failures: string[];
  guestSeconds?: number;
}

/** The environment guest.sh sees: trial coordinates, tool images, scenario parameters. */
export function trialEnv(trial: Trial, lab: LabDefinition, imageTags: Record<string, string>): Record<string, string> {
  const scenario = SCENARIOS[trial.scenario];
  const env: Record<string, string> = {
    LL_OUT: `${REMOTE_TRIALS}/${trial.id}`,
    LL_SCENARIO: trial.scenario,
    LL_TRIAL: trial.id,
    LL_MOUNT: trial.mount,
    LL_REP: String(trial.rep),
    // What the trial creates in Docker carries the lab's label (guest/lib.sh's docker wrapper).
    LL_LAB: lab.name,
  };
  for (const name of scenario.toolImages) {
    const tag = imageTags[name];
    if (!tag) throw new Error(`tool image ${name} was not loaded`);
    env[`LL_IMAGE_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`] = tag;
  }
  Object.assign(env, scenario.guestEnv(lab.scenarios[trial.scenario] as never));
  return env;
}

/**
 * Turns a trial folder (raw output + meta.json, as pulled from the host) into
 * samples. Raw files are the source of truth: this runs again on old runs.
 */
export function analyzeTrialDir(dir: string, trial: Trial, runId: string): TrialOutcome {
  const scenario = SCENARIOS[trial.scenario];
  const failures: string[] = [];
  const metaPath = join(dir, 'meta.json');
  let meta: TrialMeta | undefined;
  if (existsSync(metaPath)) {
    // The guest wrote it: unreadable JSON fails this trial, never the whole report.
    const read = readGuestJson(metaPath);
    if ('problem' in read) failures.push(`meta.json: unreadable: ${read.problem}`);
    else meta = trialMeta(read.value);
  } else failures.push('no meta.json from the guest');
  if (meta && meta.exit_status !== '0') {
    const stderr = readTail(join(dir, 'guest.stderr'));
    failures.push(`guest script exited with ${meta.exit_status}${stderr ? `: ${stderr}` : ''}`);
  }
  const rawPath = join(dir, scenario.rawFile);
  let parsed: ParseResult = { values: [], failures: [] };
  if (existsSync(rawPath)) parsed = scenario.parse(readFileSync(rawPath, 'utf8'));
  else failures.push(`no ${scenario.rawFile} in the trial output`);
  failures.push(...parsed.failures);
  const end = meta?.end ? Number(meta.end) : Number.NaN;
  if (meta && !Number.isFinite(end)) failures.push(`meta.json: end ${JSON.stringify(meta.end)} is not a time`);
  const timestamp = new Date(Number.isFinite(end) ? end * 1000 : Date.now()).toISOString();
  const samples: Sample[] = parsed.values.map((v) => ({
    run: runId,
    host: trial.host,
    profile: trial.profile,
    scenario: trial.scenario,
    mount: trial.mount,
    rep: trial.rep,
    trial: trial.id,
    metric: v.metric,
    value: v.value,
    unit: v.unit,
    timestamp,
    ...v.labels,
  }));
  const seconds = Number(meta?.end) - Number(meta?.start);
  const guestSeconds = Number.isFinite(seconds) ? seconds : undefined;
  // A trial with any failure contributes no samples: half a measurement is not one.
  const ok = failures.length === 0;
  return { ok, samples: ok ? samples : [], failures, guestSeconds };
}

/**
 * A JSON object a guest wrote, or why it cannot be used: a guest can send any
 * bytes, and one bad file must fail only what it belongs to.
 */
export function readGuestJson(path: string): { value: Record<string, unknown> } | { problem: string } {
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return { value: value as Record<string, unknown> };
    return { problem: `not a JSON object (${Array.isArray(value) ? 'an array' : typeof value})` };
  } catch (err) {
    return { problem: printable(err instanceof Error ? err.message : String(err)) };
  }
}

function readTail(path: string): string {
  if (!existsSync(path)) return '';
  // Quoted in failure reasons, which reach the terminal: no escape sequences.
  return printable(readFileSync(path, 'utf8')).trim().split('\n').slice(-3).join(' | ').slice(0, 500);
}

/** Runs a trial on its host; its output folder comes back on stdout as one tar stream. */
export async function executeTrial(
  conn: SshConnection,
  env: Record<string, string>,
  localDir: string,
  timeoutMs: number,
): Promise<void> {
  // Unpacked beside the final place, checked against the guest's MANIFEST,
  // then renamed: a trial folder is complete and verified, or absent.
  const partial = join(dirname(localDir), '.partial', basename(localDir));
  await rm(partial, { recursive: true, force: true });
  await conn.pullCommand(envCommand(env, ['bash', `${REMOTE_ROOT}/guest/run-trial.sh`]), partial, timeoutMs);
  const problems = await checkManifest(partial);
  if (problems.length) {
    throw new LabError(`pulled files do not match what the guest wrote: ${problems.join('; ')}`, {
      host: conn.endpoint.name,
      trial: basename(localDir),
    });
  }
  // An earlier attempt whose outcome was unknown (a resumed run) is replaced.
  await rm(localDir, { recursive: true, force: true });
  await rename(partial, localDir);
}
