import { UserError } from '../errors.js';
import { isRunId } from '../record/layout.js';
import type { Sample } from '../record/samples.js';
import type { History, HistoryRun } from './history.js';

/**
 * What a night is compared with (`compare --baseline <ref>`):
 * - `last`: the last good run of the same setup before it (see baselineWindow);
 * - `nights:N`: the last N such runs, their repetitions
 *   pooled per cell (more runs on the baseline side; night-to-night
 *   differences, e.g. other cloud instances, then count as noise);
 * - a run id recorded in the history, whatever its setup.
 */
export type BaselineRef = { kind: 'last' } | { kind: 'nights'; count: number } | { kind: 'run'; runId: string };

const NIGHTS_RE = /^nights:([1-9][0-9]?)$/;

export function parseBaselineRef(text: string): BaselineRef {
  if (text === 'last') return { kind: 'last' };
  const nights = NIGHTS_RE.exec(text);
  if (nights) return { kind: 'nights', count: Number(nights[1]) };
  if (isRunId(text)) return { kind: 'run', runId: text };
  throw new UserError(
    `--baseline: expected last, nights:N (N from 1 to 99) or a run id (like 20261130-101500-quick-1a2b); got ${JSON.stringify(text)}`,
  );
}

export interface Baseline {
  /** How the report names it: a run id, or "last 3 good runs (…)" */
  label: string;
  runs: HistoryRun[];
  samples: Sample[];
}

/**
 * The runs a rolling baseline (last, nights:N) draws from, newest first, out
 * of the earlier good runs of the same setup (newest first): back to the
 * newest accepted run (inclusive: `layerlab history accept` makes a
 * deliberate change the baseline), without the runs their own nightly
 * comparison flagged as regressed. So a regression does not become the
 * baseline of the next night: it is flagged every night until the numbers
 * come back, or until a person accepts it.
 */
export function baselineWindow(earlier: readonly HistoryRun[]): HistoryRun[] {
  const accepted = earlier.findIndex((r) => r.accepted_at !== null);
  const since = accepted >= 0 ? earlier.slice(0, accepted + 1) : earlier;
  return since.filter((r) => r.regressed !== 1 || r.accepted_at !== null);
}

/**
 * The baseline runs for `now` out of the history, and their samples;
 * undefined when the history has no earlier good run of that setup yet
 * (the first night of a lab sets the baseline). A named run that the
 * history does not hold is bad input.
 */
export function resolveBaseline(history: History, now: HistoryRun, ref: BaselineRef): Baseline | undefined {
  let runs: HistoryRun[];
  if (ref.kind === 'run') {
    const run = history.run(ref.runId);
    if (!run) {
      throw new UserError(
        `--baseline ${ref.runId}: no such run in ${history.path} (\`layerlab history --lab ${now.lab}\` lists them)`,
      );
    }
    runs = [run];
  } else {
    runs = baselineWindow(history.earlierGoodRuns(now)).slice(0, ref.kind === 'last' ? 1 : ref.count);
  }
  if (!runs.length) return undefined;
  const ids = runs.map((r) => r.run_id);
  const label =
    ref.kind === 'nights'
      ? `last ${runs.length} good, unflagged run(s) of the same setup (${ids.join(', ')})`
      : (ids[0] as string);
  return { label, runs, samples: runs.flatMap((r) => history.samples(r.run_id)) };
}
