import { z } from 'zod';
import { CONTAINER_NETWORKS, MOUNT_KIND_NAMES, NO_MOUNT, PROFILE_NAMES } from '../catalog.js';

/**
 * The files of a run folder (results/<run-id>/), as zod schemas: what the
 * record writes is what it reads back, and a file edited by hand, torn by a
 * crash or written by another version is refused naming the file, not
 * half-read.
 *
 * Record versions:
 * - 1: runs written up to 80ecdfe (no `recordVersion` in manifest.json).
 * - 2: `recordVersion` added; every file otherwise the same shape, so a
 *   version-1 run loads as it is.
 */
export const RECORD_VERSION = 2;

/**
 * The phases of a trial, as the guest marks them (guest/lib.sh's ll_phase), in
 * the order a trial passes through them: run-trial.sh's setup, the scenario
 * script's own start-up and what it does not mark (script), its storage
 * (mount), untimed preparation (prepare), containers created and started
 * (start), the measured work (work), reading results back (output), cleanup,
 * and run-trial.sh after the scenario (finish). The guest's last mark, `end`,
 * closes the last phase.
 */
export const TRIAL_PHASES = [
  'setup',
  'script',
  'mount',
  'prepare',
  'start',
  'work',
  'output',
  'cleanup',
  'finish',
] as const;
export type TrialPhase = (typeof TRIAL_PHASES)[number];

/**
 * A trial's seconds per phase (guest clock), summed over the phase's spans.
 * Any name: a journal line is never refused for one this version does not
 * know (the report counts the names it knows).
 */
export const trialPhasesSchema = z.record(z.string(), z.number().nonnegative());
export type TrialPhases = Partial<Record<TrialPhase, number>>;

/** A trial state as the journal records it (append-only, fsynced). */
export const journalEntrySchema = z
  .object({
    // Optional: hand-made and test fixtures omit it; the run always writes it.
    at: z.string().optional(),
    trial: z.string(),
    host: z.string(),
    state: z.enum(['started', 'done', 'failed']),
    reason: z.string().optional(),
    /** Seconds the guest scenario script ran (from meta.json). */
    guestSeconds: z.number().optional(),
    /** Seconds the controller spent on the trial end to end. */
    wallSeconds: z.number().optional(),
    samples: z.number().optional(),
    /** Where the guest's time went (lab/collect/phases.ts); absent in runs before phases were kept. */
    phases: trialPhasesSchema.optional(),
    /** Why the guest's phases were not kept (garbled, not monotonic, longer than the trial). */
    phasesDropped: z.string().optional(),
  })
  .passthrough();
export type JournalEntry = z.infer<typeof journalEntrySchema>;
export type TrialState = JournalEntry['state'];

/** One line of samples.ndjson: the core labels plus the scenario's own (fio: job, direction). */
export const sampleSchema = z
  .object({
    run: z.string(),
    host: z.string(),
    profile: z.string(),
    scenario: z.string(),
    mount: z.string(),
    rep: z.number(),
    trial: z.string(),
    metric: z.string(),
    value: z.number(),
    unit: z.string(),
    timestamp: z.string(),
  })
  .catchall(z.union([z.string(), z.number()]));

/** One line of samples.ndjson: core labels typed, scenario labels (fio: job, direction) as strings or numbers. */
export type Sample = z.infer<typeof sampleSchema>;

/**
 * A planned trial. The scenario is a plain name: a run keeps the names it was
 * recorded with, so a run whose scenario was renamed or removed since still
 * loads and re-reports; resuming one refuses the names this version does not know.
 */
const trialSchema = z.object({
  id: z.string(),
  host: z.string(),
  profile: z.enum(PROFILE_NAMES),
  scenario: z.string(),
  mount: z.union([z.enum(MOUNT_KIND_NAMES), z.literal(NO_MOUNT)]),
  rep: z.number(),
});

/** plan.json: the trial order, fixed before the first trial. */
export const planFileSchema = z.object({
  seed: z.number(),
  mode: z.enum(['serial', 'parallel']),
  trials: z.array(trialSchema),
});

/** plan.json as recorded: scenario names as the run wrote them (plan/plan.ts checks them before a resume). */
export type RecordedPlan = z.infer<typeof planFileSchema>;
export type RecordedTrial = RecordedPlan['trials'][number];

/** What ended a run: the fixed count, a stop-rule condition, or an interruption. */
export const stopReasonSchema = z.enum(['fixed-count', 'target-ci-width', 'max-repetitions', 'budget', 'interrupted']);
export type StopReason = z.infer<typeof stopReasonSchema>;

/** summary.json: derived from the journal at the end of a run (the journal is the record). */
export const runSummarySchema = z
  .object({
    runId: z.string(),
    trials: z.number(),
    done: z.number(),
    failed: z.number(),
    skipped: z.number(),
    wallSeconds: z.number(),
    /** Sum of guest scenario-script seconds, for the harness-overhead figure. */
    guestSeconds: z.number(),
    /** Seconds spent connecting, pushing guest files and capturing env, before the first trial. */
    setupSeconds: z.number(),
    failures: z.array(z.object({ trial: z.string(), host: z.string(), reason: z.string() })),
    /** Repetitions completed. */
    repetitions: z.number(),
    stoppedBy: stopReasonSchema.optional(),
    /** Widest compared interval at the last stop-rule check. */
    widestInterval: z.number().optional(),
  })
  .passthrough();
export type RunSummary = z.infer<typeof runSummarySchema>;

/**
 * The lab definition as the run recorded it. Loose on purpose: runs of older
 * versions lack newer keys, and the report reads only what it names
 * (recordedLab in load.ts); `run --resume` compares it whole with today's.
 */
const recordedLabSchema = z.object({ name: z.string() }).passthrough();

const resumeSchema = z.object({ at: z.string(), gitRevision: z.string().optional() }).passthrough();

/** manifest.json: what ran, where, with which versions. */
export const manifestSchema = z
  .object({
    /** Absent in runs written before version 2. */
    recordVersion: z.number().int().positive().optional(),
    runId: z.string(),
    startedAt: z.string().optional(),
    labFile: z.string().optional(),
    lab: recordedLabSchema,
    inventory: z.object({ target: z.string() }).passthrough().optional(),
    /** The target's container network (lab/catalog.ts); absent before it existed, when every target had none. */
    containerNetwork: z.enum(CONTAINER_NETWORKS).optional(),
    plan: z.object({ seed: z.number().optional(), mode: z.string().optional() }).passthrough().optional(),
    gitRevision: z.string().optional(),
    versions: z.record(z.string()).optional(),
    toolImages: z.record(z.string()).optional(),
    resumes: z.array(resumeSchema).optional(),
  })
  .passthrough();
export type Manifest = z.infer<typeof manifestSchema>;

/**
 * A trial's meta.json as the guest wrote it (guest/run-trial.sh). The guest
 * is not trusted: every field is read as text whatever type it sent, and a
 * missing one is '' (the parser of the trial output says what that means).
 */
export const TRIAL_META_KEYS = [
  'start',
  'end',
  'exit_status',
  'loadavg_before',
  'loadavg_after',
  'steal_ticks_before',
  'steal_ticks_after',
  'clk_tck',
] as const;
export type TrialMeta = Record<(typeof TRIAL_META_KEYS)[number], string>;

/** A host's env summary.json as text fields; `unreadable` ("<file>: <why>") when the guest's file was not usable. */
export interface HostEnvSummary {
  unreadable?: string;
  [key: string]: string | undefined;
}
