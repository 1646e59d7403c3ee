import { existsSync, writeFileSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { appendLineSync, writeJson } from '../util/files.js';
import { removeOwnedChild } from '../util/owned-dir.js';
import { Journal, type JournalEntry } from './journal.js';
import { createRunDir, runFiles } from './layout.js';
import { readManifest, readRecordJson } from './load.js';
import { readSamples, writeSamples } from './samples.js';
import {
  type Manifest,
  RECORD_VERSION,
  type RecordedPlan,
  type RunSummary,
  type Sample,
  planFileSchema,
  runSummarySchema,
} from './schemas.js';

/** What a new run's manifest says besides its id and version. */
export interface ManifestFields {
  startedAt: string;
  labFile: string;
  lab: Manifest['lab'];
  inventory: NonNullable<Manifest['inventory']>;
  containerNetwork?: Manifest['containerNetwork'];
  plan: { seed: number; mode: string };
  gitRevision: string;
  versions: Record<string, string>;
  toolImages: Record<string, string>;
}

/** Where an interrupted run stands: what is kept, and the trial time it already spent. */
export interface ResumePoint {
  done: ReadonlySet<string>;
  samples: readonly Sample[];
  trialSeconds: number;
}

/**
 * A run folder (results/<run-id>/), the only code that writes one. The
 * journal is the record of what happened; samples are appended only for
 * trials the journal will call done; a trial folder lands whole (staged,
 * checked by the caller, renamed) or not at all.
 */
export class RunRecord {
  private readonly files: ReturnType<typeof runFiles>;
  private readonly journal: Journal;

  private constructor(
    readonly runId: string,
    readonly dir: string,
    private manifestValue: Manifest,
    readonly plan: RecordedPlan,
  ) {
    this.files = runFiles(dir);
    this.journal = new Journal(this.files.journal);
  }

  /** A new run folder under `root` with its manifest and plan written. */
  static async create(root: string, labName: string, fields: ManifestFields, plan: RecordedPlan): Promise<RunRecord> {
    const { runId, dir } = createRunDir(root, labName);
    const manifest: Manifest = { recordVersion: RECORD_VERSION, runId, ...fields };
    const record = new RunRecord(runId, dir, manifest, plan);
    await writeJson(record.files.manifest, manifest);
    await writeJson(record.files.plan, plan);
    writeFileSync(record.files.samples, '', { flag: 'a' });
    return record;
  }

  /** An existing run folder, its manifest and plan checked (a newer record version is refused). */
  static open(dir: string): RunRecord {
    const files = runFiles(dir);
    const manifest = readManifest(files.manifest);
    const plan: RecordedPlan = readRecordJson(files.plan, planFileSchema);
    return new RunRecord(manifest.runId, dir, manifest, plan);
  }

  get manifest(): Manifest {
    return this.manifestValue;
  }

  /** Held while the folder is written (`run`, `run --resume`): one writer per journal. */
  get lockPath(): string {
    return this.files.lock;
  }

  /** summary.json as the last run (or resumption) left it; absent when it never ended cleanly. */
  summary(): RunSummary | undefined {
    return existsSync(this.files.summary) ? readRecordJson(this.files.summary, runSummarySchema) : undefined;
  }

  appendJournal(entry: Omit<JournalEntry, 'at'>): void {
    this.journal.append(entry);
  }

  /** Appends a done trial's samples (fsynced); call before its journal line says done. */
  appendSamples(samples: readonly Sample[]): void {
    if (samples.length) appendLineSync(this.files.samples, samples.map((s) => JSON.stringify(s)).join('\n'));
  }

  /** Where a trial's output is unpacked before it is checked: beside its final place, never read as a result. */
  stagingDir(trialId: string): string {
    return join(this.dir, 'trials', '.partial', trialId);
  }

  trialDir(trialId: string): string {
    return this.files.trialDir(trialId);
  }

  /** Moves a checked trial folder into place, replacing an earlier attempt whose outcome was unknown. */
  async commitTrial(trialId: string): Promise<string> {
    const dir = this.trialDir(trialId);
    await rm(dir, { recursive: true, force: true });
    await rename(this.stagingDir(trialId), dir);
    return dir;
  }

  hostLogPath(host: string): string {
    return join(this.files.hostDir(host), 'ssh.log');
  }

  /** Where a host's environment goes; a resumed run keeps the first capture and adds one per resumption. */
  newEnvDir(host: string, now = Date.now()): string {
    const first = this.files.envDir(host);
    return existsSync(first) ? `${first}.resumed-${now}` : first;
  }

  /** summary.json is derived (the journal is the record); the caller decides what a failed write means. */
  writeSummary(summary: RunSummary): Promise<void> {
    return writeJson(this.files.summary, summary);
  }

  /** samples.ndjson as it is now (before a re-parse replaces it). */
  recordedSamples(): Sample[] {
    return readSamples(this.files.samples);
  }

  /** Replaces samples.ndjson as a whole (a re-parse of the raw trial folders), atomically. */
  rewriteSamples(samples: readonly Sample[]): Promise<void> {
    return writeSamples(this.files.samples, samples);
  }

  /** Removes the staging space (empty unless an attempt was cut short): never a result. */
  async clearStaging(): Promise<void> {
    await rm(join(this.dir, 'trials', '.partial'), { recursive: true, force: true }).catch(() => undefined);
  }

  /**
   * Makes an interrupted run resumable: trials whose last journal state is
   * done stay with their samples; anything else (in flight, failed) is
   * removed so that it runs again and counts once.
   */
  async resumePoint(): Promise<ResumePoint> {
    const states = Journal.finalStates(Journal.read(this.files.journal));
    const doneEntries = [...states.values()].filter((e) => e.state === 'done');
    const done = new Set(doneEntries.map((e) => e.trial));
    const trialSeconds = doneEntries.reduce((sum, e) => sum + (e.wallSeconds ?? 0), 0);
    // Samples of a trial count only once its journal line says done.
    const samples = readSamples(this.files.samples).filter((s) => done.has(s.trial));
    await this.rewriteSamples(samples);
    const trials = join(this.dir, 'trials');
    for (const trial of this.plan.trials) if (!done.has(trial.id)) await removeOwnedChild(trials, trial.id);
    await removeOwnedChild(trials, '.partial');
    return { done, samples, trialSeconds };
  }

  /** Notes a resumption in the manifest (when, on which hosts, with which code). */
  async addResume(entry: NonNullable<Manifest['resumes']>[number]): Promise<void> {
    this.manifestValue = { ...this.manifestValue, resumes: [...(this.manifestValue.resumes ?? []), entry] };
    await writeJson(this.files.manifest, this.manifestValue);
  }
}
