import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Trial } from '../plan/plan.js';
import type { Sample } from '../record/samples.js';
import { TRIAL_META_KEYS, type TrialMeta } from '../record/schemas.js';
import { SCENARIOS } from '../scenarios/index.js';
import type { ParseResult } from '../scenarios/types.js';
import { readGuestJson } from '../util/guest-json.js';
import { printable, quoted, visible } from '../util/safe-text.js';
import { type ParsedPhases, readPhases } from './phases.js';

/** The fields of a guest's meta.json, each as text whatever type the guest sent ('' when absent). */
export function trialMeta(value: Record<string, unknown>): TrialMeta {
  const text = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));
  const meta = Object.fromEntries(TRIAL_META_KEYS.map((key) => [key, text(value[key])]));
  return meta as TrialMeta;
}

export interface TrialOutcome {
  ok: boolean;
  samples: Sample[];
  failures: string[];
  guestSeconds?: number;
  /** The guest's phases file, parsed (no file: undefined); the executor checks them against the trial's wall. */
  phases?: ParsedPhases;
}

/**
 * Turns a trial folder (raw output + meta.json, as pulled from the host) into
 * samples. Raw files are the source of truth: this runs again on old runs.
 */
export function parseTrialOutput(dir: string, trial: Trial, runId: string): TrialOutcome {
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
    failures.push(`guest script exited with ${visible(meta.exit_status)}${stderr ? `: ${stderr}` : ''}`);
  }
  const rawPath = join(dir, scenario.rawFile);
  let parsed: ParseResult = { values: [], failures: [] };
  if (existsSync(rawPath)) parsed = scenario.parse(readFileSync(rawPath, 'utf8'));
  else failures.push(`no ${scenario.rawFile} in the trial output`);
  // The parser's complaints and labels quote the raw output, which the guest wrote (a fio job
  // name is anything): control characters are shown as escapes from here on, in samples.ndjson,
  // the journal, the history and every report (the renderers escape again for their context).
  failures.push(...parsed.failures.map(visible));
  const end = meta?.end ? Number(meta.end) : Number.NaN;
  if (meta && !Number.isFinite(end)) failures.push(`meta.json: end ${quoted(meta.end)} is not a time`);
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
    ...Object.fromEntries(Object.entries(v.labels).map(([key, label]) => [visible(key), visible(label)])),
  }));
  const seconds = Number(meta?.end) - Number(meta?.start);
  const guestSeconds = Number.isFinite(seconds) ? seconds : undefined;
  // A trial with any failure contributes no samples: half a measurement is not one.
  const ok = failures.length === 0;
  return { ok, samples: ok ? samples : [], failures, guestSeconds, phases: readPhases(dir) };
}

function readTail(path: string): string {
  if (!existsSync(path)) return '';
  // Quoted in failure reasons, which reach the terminal: no escape sequences.
  return printable(readFileSync(path, 'utf8')).trim().split('\n').slice(-3).join(' | ').slice(0, 500);
}
