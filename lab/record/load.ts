import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { z } from 'zod';
import type { ContainerNetwork } from '../catalog.js';
import { LabError, errorMessage } from '../errors.js';
import { readGuestJson } from '../util/guest-json.js';
import { printable } from '../util/safe-text.js';
import { zodProblem } from './check.js';
import { Journal, type JournalEntry } from './journal.js';
import { runFiles } from './layout.js';
import { type Sample, readSamples } from './samples.js';
import {
  type HostEnvSummary,
  type Manifest,
  RECORD_VERSION,
  type RunSummary,
  type TrialPhases,
  manifestSchema,
  runSummarySchema,
} from './schemas.js';

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
    // An unreadable meta.json fails its trial (parseTrialOutput says why); it has no noise figures.
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

/** A done trial's time: the controller's wall, and the guest's phases where it kept them. */
export interface TrialTime {
  trial: string;
  scenario: string;
  wallSeconds: number;
  /** Absent in runs before phases were kept, or when the guest's were dropped. */
  phases?: TrialPhases;
  /** Why they were dropped (the journal's phasesDropped). */
  phasesDropped?: string;
}

/** Every done trial's time from the journal (its last state), its scenario from the plan. */
function readTimes(journal: readonly JournalEntry[], scenarioOf: (trial: string) => string | undefined): TrialTime[] {
  return [...Journal.finalStates(journal).values()].flatMap((e) => {
    const scenario = scenarioOf(e.trial);
    if (e.state !== 'done' || e.wallSeconds === undefined || scenario === undefined) return [];
    return [
      {
        trial: e.trial,
        scenario,
        wallSeconds: e.wallSeconds,
        ...(e.phases ? { phases: e.phases as TrialPhases } : {}),
        ...(e.phasesDropped !== undefined ? { phasesDropped: e.phasesDropped } : {}),
      },
    ];
  });
}

export interface LoadedRun {
  dir: string;
  manifest: Manifest;
  samples: Sample[];
  journal: JournalEntry[];
  summary?: RunSummary;
  env: Map<string, HostEnvSummary>;
  noise: TrialNoise[];
  /** Done trials' wall time and phases (absent: none known, as in a run held in memory). */
  times?: TrialTime[];
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
  /** Each enabled scenario's parameters as recorded (the report sets them beside the seeds'). */
  scenarios: Partial<Record<string, unknown>>;
  /** A count, or the stop rule's { min, max, … }, as recorded. */
  repetitions?: unknown;
  /** Scenarios capped below the lab's repetitions. */
  scenarioRepetitions: Partial<Record<string, number>>;
  /** How its target networked the containers (the manifest's; none in runs that did not record it). */
  containerNetwork?: ContainerNetwork;
}

export function recordedLab(run: LoadedRun): RecordedLab {
  const lab = run.manifest.lab as Partial<RecordedLab>;
  return {
    name: String(lab.name),
    hosts: lab.hosts ?? [],
    mounts: lab.mounts ?? [],
    scenarioMounts: lab.scenarioMounts ?? {},
    equivalent: lab.equivalent ?? [],
    scenarios: lab.scenarios ?? {},
    repetitions: lab.repetitions,
    scenarioRepetitions: lab.scenarioRepetitions ?? {},
    // Before the manifest recorded it, every target ran containers with --network none.
    containerNetwork: run.manifest.containerNetwork ?? 'none',
  };
}

/** A guest's env summary.json, each value as text; an unusable file is reported, not thrown. */
function envSummary(path: string, shown: string): HostEnvSummary {
  const read = readGuestJson(path);
  // As text: report.md's renderer escapes what a table cell cannot hold (a '|' from the parser's message).
  if ('problem' in read) return { unreadable: `${shown}: ${read.problem}` };
  return Object.fromEntries(
    Object.entries(read.value).map(([key, v]) => [key, printable(typeof v === 'string' ? v : JSON.stringify(v))]),
  );
}

/** A JSON file of the record, checked against its schema: a bad one is refused naming the file and field. */
export function readRecordJson<S extends z.ZodTypeAny>(path: string, schema: S): z.infer<S> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new LabError(`${path}: not JSON (${errorMessage(err)}); the run folder is damaged`);
  }
  const result = schema.safeParse(value);
  if (!result.success)
    throw new LabError(`${path}: ${zodProblem(result.error)}; the run folder is damaged or not a run`);
  return result.data;
}

/**
 * manifest.json, refused when a newer layerlab wrote it: its files may mean
 * something this version does not know. Runs without a version are
 * version 1 (up to 80ecdfe) and load as they are.
 */
export function readManifest(path: string): Manifest {
  const manifest = readRecordJson(path, manifestSchema);
  const version = manifest.recordVersion ?? 1;
  if (version > RECORD_VERSION) {
    throw new LabError(
      `${path}: run record version ${version}, written by a newer layerlab; this one reads versions 1 to ${RECORD_VERSION}. Use the layerlab that wrote it (manifest.json: versions.layerlab ${JSON.stringify(manifest.versions?.layerlab ?? 'unknown')}, git ${manifest.gitRevision ?? 'unknown'})`,
    );
  }
  return manifest;
}

/** plan.json as the report needs it (trial → host); fixtures and damaged runs may lack the rest. */
const plannedHostsSchema = z.object({
  trials: z.array(z.object({ id: z.string(), host: z.string(), scenario: z.string().optional() }).passthrough()),
});

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
  const plan = existsSync(files.plan) ? readRecordJson(files.plan, plannedHostsSchema) : { trials: [] };
  const hostOfTrial = new Map(plan.trials.map((t) => [t.id, t.host]));
  const scenarioOfTrial = new Map(plan.trials.map((t) => [t.id, t.scenario]));
  const env = new Map<string, HostEnvSummary>();
  const hostsDir = join(dir, 'hosts');
  if (existsSync(hostsDir)) {
    for (const host of readdirSync(hostsDir)) {
      const path = join(files.envDir(host), 'summary.json');
      if (existsSync(path)) env.set(host, envSummary(path, relative(dir, path)));
    }
  }
  // The manifest before the journal, in the order the fields were read before (a newer run's refusal wins).
  const manifest = readManifest(files.manifest);
  const journal: JournalEntry[] = [
    ...Journal.read(files.journal),
    ...[...reparseFailures].map(([trial, { host, reason }]) => ({
      at: new Date().toISOString(),
      trial,
      host,
      state: 'failed' as const,
      reason: `re-parse: ${reason}`,
    })),
  ];
  return {
    dir,
    manifest,
    samples,
    journal,
    summary: existsSync(files.summary) ? readRecordJson(files.summary, runSummarySchema) : undefined,
    env,
    noise: readNoise(dir, (trial) => hostOfTrial.get(trial) ?? '?'),
    times: readTimes(journal, (trial) => scenarioOfTrial.get(trial)),
  };
}
