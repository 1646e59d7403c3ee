import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { UserError } from '../errors.js';
import { parseBaselineRef, resolveBaseline } from '../history/baseline.js';
import { benchmarkEntries, cellName } from '../history/benchmark-export.js';
import { type RunDelta, compareSamples, deltasJson, deltasMarkdown } from '../history/compare.js';
import { keyChanges, parseKey } from '../history/comparison-key.js';
import { History, type HistoryRun } from '../history/history.js';
import { resultsRoot } from '../paths.js';
import { resolveRunDir } from '../record/layout.js';
import { loadRun } from '../record/load.js';
import type { Sample } from '../record/samples.js';
import { scenarioMetric } from '../scenarios/index.js';
import { jsonText, markdownText } from '../util/safe-text.js';
import { checkCliName, checkRunRef } from './context.js';

export interface CompareOptions {
  /** last | nights:N | a run id: compare with the history instead of a second run folder. */
  baseline?: string;
  /** With --baseline and no run given: the newest run of this lab. */
  lab?: string;
  /** Smallest worsening that counts as a regression, e.g. "5%" (default 0%). */
  threshold?: string;
  json?: boolean;
  /** Writes the new run's headline metrics for github-action-benchmark here. */
  benchmarkDir?: string;
}

/** Exit codes: 0 no regression (or no baseline yet), 1 at least one regression above the threshold; bad input throws (2). */
export const REGRESSION_EXIT = 1;

const THRESHOLD_RE = /^(\d{1,2}(\.\d+)?)%$/;

export function parseThreshold(text: string | undefined): number {
  if (text === undefined) return 0;
  const m = THRESHOLD_RE.exec(text);
  if (!m) throw new UserError(`--threshold: expected a percentage below 100, like 5%; got ${JSON.stringify(text)}`);
  return Number(m[1]) / 100;
}

interface Sides {
  names: { baseline: string; baselineRuns: string[]; now: string };
  baseline: readonly Sample[];
  now: readonly Sample[];
  /** "host: field before → after" where the baseline's comparison key differs from the new run's. */
  envChanges?: string[];
}

/** Two run folders (`compare <old> <new>`). */
function foldersSides(refs: readonly string[]): Sides {
  if (refs.length !== 2) throw new UserError('compare: give two runs (<old> <new>), or --baseline with one run');
  const [oldRef, newRef] = refs as [string, string];
  checkRunRef('compare <old>', oldRef);
  checkRunRef('compare <new>', newRef);
  const oldDir = resolveRunDir(oldRef);
  const newDir = resolveRunDir(newRef);
  return {
    names: { baseline: basename(oldDir), baselineRuns: [basename(oldDir)], now: basename(newDir) },
    baseline: loadRun(oldDir).samples,
    now: loadRun(newDir).samples,
  };
}

/** The run to judge, out of the history: the one named, or the newest of --lab. */
function historyRun(history: History, refs: readonly string[], lab: string | undefined): HistoryRun {
  if (refs.length > 1) throw new UserError('compare --baseline: give at most one run (the new one)');
  const [ref] = refs;
  if (ref === undefined) {
    if (lab === undefined) throw new UserError('compare --baseline: name the new run, or --lab <name> for its newest');
    const newest = history.runs(lab).at(-1);
    if (!newest) throw new UserError(`no run of lab ${lab} in ${history.path}`);
    return newest;
  }
  checkRunRef('compare <run>', ref);
  const id = basename(ref);
  const run = history.run(id);
  if (!run) throw new UserError(`run ${id} is not in ${history.path}; \`layerlab report ${ref}\` records it`);
  if (lab !== undefined && run.lab !== lab) throw new UserError(`run ${id} is of lab ${run.lab}, not --lab ${lab}`);
  return run;
}

/** Two run folders, cell by cell: the older is the baseline. */
export function compareRuns(oldDir: string, newDir: string, options: { threshold?: number } = {}): RunDelta[] {
  return compareSamples(loadRun(oldDir).samples, loadRun(newDir).samples, options);
}

/** Markdown of a two-folder comparison. */
export function formatDeltas(oldId: string, newId: string, deltas: readonly RunDelta[], threshold = 0): string {
  return deltasMarkdown({ baseline: oldId, now: newId }, deltas, threshold);
}

function writeBenchmark(dir: string, samples: readonly Sample[], runId: string): void {
  const { bigger, smaller } = benchmarkEntries(samples, runId, scenarioMetric);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'bigger-is-better.json'), `${jsonText(bigger, 2)}\n`);
  writeFileSync(join(dir, 'smaller-is-better.json'), `${jsonText(smaller, 2)}\n`);
}

function render(sides: Sides, deltas: readonly RunDelta[], threshold: number, json: boolean | undefined): string {
  const envChanges = sides.envChanges ?? [];
  return json
    ? `${jsonText({ ...deltasJson(sides.names, deltas, threshold), environmentChanges: envChanges }, 2)}\n`
    : deltasMarkdown({ baseline: sides.names.baseline, now: sides.names.now }, deltas, threshold, envChanges);
}

export interface CompareOutcome {
  exitCode: number;
  /** Markdown or JSON, for stdout. */
  output: string;
  /** The cells that regressed (names as cellName). */
  regressedCells?: string[];
}

function judged(sides: Sides, threshold: number, opts: CompareOptions): CompareOutcome {
  const deltas = compareSamples(sides.baseline, sides.now, { threshold });
  if (opts.benchmarkDir) writeBenchmark(opts.benchmarkDir, sides.now, sides.names.now);
  const regressed = deltas.filter((d) => d.kind === 'regression');
  return {
    exitCode: regressed.length ? REGRESSION_EXIT : 0,
    output: render(sides, deltas, threshold, opts.json),
    regressedCells: regressed.map((d) => cellName({ ...d, metric: d.metric.name })),
  };
}

/** The first night of a setup: nothing to compare with, and not a failure. */
function noBaseline(history: History, run: HistoryRun, threshold: number, opts: CompareOptions): CompareOutcome {
  const why = `no earlier good run of lab ${run.lab} with target ${run.target ?? '?'}, hosts ${run.hosts ?? '?'} and the same scenario parameters in ${history.path}: nothing to compare; this run is the baseline of the next`;
  if (opts.benchmarkDir) writeBenchmark(opts.benchmarkDir, history.samples(run.run_id), run.run_id);
  const json = { run: run.run_id, baseline: null, baselineRuns: [], threshold, regressions: 0, cells: [], note: why };
  return {
    exitCode: 0,
    output: opts.json
      ? `${jsonText(json, 2)}\n`
      : `# layerlab compare: ${markdownText(run.run_id)}\n\n${markdownText(why)}.\n`,
  };
}

/**
 * `layerlab compare`: two run folders, or one run against the history
 * (--baseline). Returns the output (Markdown, or JSON with --json) and the
 * exit code; bad input throws a UserError (exit 2) before anything is read.
 */
export async function compareCommand(refs: readonly string[], opts: CompareOptions): Promise<CompareOutcome> {
  const threshold = parseThreshold(opts.threshold);
  if (opts.lab !== undefined) checkCliName('--lab', opts.lab);
  if (opts.baseline === undefined) {
    if (opts.lab !== undefined) throw new UserError('compare: --lab goes with --baseline');
    return judged(foldersSides(refs), threshold, opts);
  }
  const ref = parseBaselineRef(opts.baseline);
  const path = join(resultsRoot(), 'history.sqlite');
  if (!existsSync(path))
    throw new UserError(`--baseline: no history at ${path} (runs are recorded there when reported)`);
  const history = await History.open(path);
  try {
    const now = historyRun(history, refs, opts.lab);
    const baseline = resolveBaseline(history, now, ref);
    // A rolling baseline's verdict is kept: a flagged night is left out of the next nights' baselines.
    const rolling = ref.kind !== 'run';
    if (!baseline) {
      if (rolling) history.judged(now.run_id, false);
      return noBaseline(history, now, threshold, opts);
    }
    const sides: Sides = {
      names: { baseline: baseline.label, baselineRuns: baseline.runs.map((r) => r.run_id), now: now.run_id },
      baseline: baseline.samples,
      now: history.samples(now.run_id),
      envChanges: [...new Set(baseline.runs.flatMap((r) => keyChanges(parseKey(r.env_key), parseKey(now.env_key))))],
    };
    const outcome = judged(sides, threshold, opts);
    if (rolling) history.judged(now.run_id, outcome.exitCode === REGRESSION_EXIT, outcome.regressedCells);
    return outcome;
  } finally {
    history.close();
  }
}
