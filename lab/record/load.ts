import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readGuestJson } from '../collect/guest-json.js';
import { LabError } from '../errors.js';
import { Journal, type JournalEntry } from '../record/journal.js';
import { runFiles } from '../record/layout.js';
import type { RunSummary } from '../run/runner.js';
import { printable } from '../util/safe-text.js';
import { type Sample, readSamples } from './samples.js';

/** A host's env summary.json as text fields; `unreadable` ("<file>: <why>") when the guest's file was not usable. */
export interface HostEnvSummary {
  unreadable?: string;
  [key: string]: string | undefined;
}

/** Load and CPU steal around one trial, from its meta.json. */
export interface TrialNoise {
  trial: string;
  host: string;
  /** 1-minute load average just before the trial (includes the previous trial's tail). */
  load1Before: number;
  load1After: number;
  /** CPU steal during the trial, in seconds (0 where the hypervisor does not report it, e.g. TCG). */
  stealSeconds: number;
  guestSeconds: number;
}

function readNoise(dir: string, hostOf: (trial: string) => string): TrialNoise[] {
  const trialsDir = join(dir, 'trials');
  if (!existsSync(trialsDir)) return [];
  return readdirSync(trialsDir).flatMap((trial) => {
    const path = join(trialsDir, trial, 'meta.json');
    if (!existsSync(path)) return [];
    // An unreadable meta.json fails its trial (analyzeTrialDir says why); it has no noise figures.
    const read = readGuestJson(path);
    if ('problem' in read) return [];
    const m = read.value;
    const load1 = (s: unknown) => Number(String(s ?? '').split(' ')[0]);
    const ticks = Number(m.steal_ticks_after) - Number(m.steal_ticks_before);
    return [
      {
        trial,
        host: hostOf(trial),
        load1Before: load1(m.loadavg_before),
        load1After: load1(m.loadavg_after),
        stealSeconds: Number.isFinite(ticks) ? ticks / (Number(m.clk_tck) || 100) : 0,
        guestSeconds: Number(m.end) - Number(m.start),
      },
    ];
  });
}

export interface LoadedRun {
  dir: string;
  manifest: Record<string, unknown> & { runId: string; lab: { name: string } };
  samples: Sample[];
  journal: JournalEntry[];
  summary?: RunSummary;
  env: Map<string, HostEnvSummary>;
  noise: TrialNoise[];
}

/**
 * The parts of the lab definition the report reads, from the run's manifest.
 * Runs recorded by older versions may lack newer keys: they read as empty.
 */
export interface RecordedLab {
  name: string;
  hosts: { name: string; profile: string }[];
  mounts: string[];
  scenarioMounts: Partial<Record<string, string[]>>;
  /** Pairs the lab marked as the same by construction (A/A checks). */
  equivalent: [string, string][];
}

export function recordedLab(run: LoadedRun): RecordedLab {
  const lab = run.manifest.lab as Partial<RecordedLab>;
  return {
    name: String(lab.name),
    hosts: lab.hosts ?? [],
    mounts: lab.mounts ?? [],
    scenarioMounts: lab.scenarioMounts ?? {},
    equivalent: lab.equivalent ?? [],
  };
}

/** A guest's env summary.json, each value as text; an unusable file is reported, not thrown. */
function envSummary(path: string, shown: string): HostEnvSummary {
  const read = readGuestJson(path);
  // Shown in a Markdown table cell: a '|' from the parser's message must not split it.
  if ('problem' in read) return { unreadable: `${shown}: ${read.problem}`.replaceAll('|', '\\|') };
  return Object.fromEntries(
    Object.entries(read.value).map(([key, v]) => [key, printable(typeof v === 'string' ? v : JSON.stringify(v))]),
  );
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/**
 * Reads a run folder. `reparseFailures` (trial -> reason) marks trials whose
 * raw output the current parser refuses, even if the journal said done.
 */
export function loadRun(
  dir: string,
  reparseFailures: ReadonlyMap<string, { host: string; reason: string }> = new Map(),
): LoadedRun {
  const files = runFiles(dir);
  if (!existsSync(files.manifest)) throw new LabError(`${dir} is not a run folder (no manifest.json)`);
  const samples = readSamples(files.samples);
  const plan = existsSync(files.plan)
    ? readJson<{ trials: { id: string; host: string }[] }>(files.plan)
    : { trials: [] };
  const hostOfTrial = new Map(plan.trials.map((t) => [t.id, t.host]));
  const env = new Map<string, HostEnvSummary>();
  const hostsDir = join(dir, 'hosts');
  if (existsSync(hostsDir)) {
    for (const host of readdirSync(hostsDir)) {
      const path = join(files.envDir(host), 'summary.json');
      if (existsSync(path)) env.set(host, envSummary(path, relative(dir, path)));
    }
  }
  return {
    dir,
    manifest: readJson(files.manifest),
    samples,
    journal: [
      ...Journal.read(files.journal),
      ...[...reparseFailures].map(([trial, { host, reason }]) => ({
        at: new Date().toISOString(),
        trial,
        host,
        state: 'failed' as const,
        reason: `re-parse: ${reason}`,
      })),
    ],
    summary: existsSync(files.summary) ? readJson<RunSummary>(files.summary) : undefined,
    env,
    noise: readNoise(dir, (trial) => hostOfTrial.get(trial) ?? '?'),
  };
}
