import { groupCells, seriesOf } from '../analyze/comparison-rows.js';
import { type Comparison, decideFamily, testPair } from '../analyze/verdict.js';
import type { Sample } from '../record/samples.js';
import { SCENARIOS, type ScenarioName } from '../scenarios/index.js';
import type { MetricSpec } from '../scenarios/types.js';
import { markdownLineStart, markdownText } from '../util/safe-text.js';

/**
 * What one cell did between the baseline and the new run:
 * - regression: worse, the difference claimed after the family control, and
 *   by more than the threshold;
 * - within-threshold: worse and claimed, but by no more than the threshold;
 * - improvement: better and claimed (whatever its size);
 * - no-difference, not-enough-runs, undefined: as in the report.
 */
export type DeltaKind =
  | 'regression'
  | 'within-threshold'
  | 'improvement'
  | 'no-difference'
  | 'not-enough-runs'
  | 'undefined';

export interface RunDelta {
  key: string;
  host: string;
  mount: string;
  scenario: string;
  series: string;
  metric: MetricSpec;
  /** New against baseline: ratio = new/baseline. */
  result: Comparison;
  kind: DeltaKind;
}

/**
 * Is a claimed worsening larger than the threshold? Read from the typical
 * ratio new/baseline: below 1 − t when higher is better, above 1 + t when
 * lower is better (t = 0.05 for `--threshold 5%`).
 */
export function beyondThreshold(ratio: number, better: MetricSpec['better'], threshold: number): boolean {
  return better === 'higher' ? 1 - ratio > threshold : ratio - 1 > threshold;
}

function kindOf(result: Comparison, better: MetricSpec['better'], threshold: number): DeltaKind {
  switch (result.verdict) {
    case 'a-better':
      return 'improvement';
    case 'b-better':
      return beyondThreshold(result.ratio as number, better, threshold) ? 'regression' : 'within-threshold';
    default:
      return result.verdict;
  }
}

/**
 * Compares the new samples with the baseline's, cell by cell (same
 * scenario, host, mount, series and metric; the headline metrics only),
 * with the report's test: a difference is claimed only where it survives
 * the false-discovery control over every cell compared (a nightly
 * comparison of hundreds of cells would otherwise flag something nearly
 * every night). Cells only one side has are skipped.
 */
export function compareSamples(
  baseline: readonly Sample[],
  now: readonly Sample[],
  options: { threshold?: number } = {},
): RunDelta[] {
  const threshold = options.threshold ?? 0;
  const before = groupCells(baseline);
  const tested: (Omit<RunDelta, 'kind'> & { better: MetricSpec['better']; nameA: string })[] = [];
  for (const [key, cell] of groupCells(now)) {
    const then = before.get(key);
    if (!then) continue;
    const scenario = SCENARIOS[cell.sample.scenario as ScenarioName];
    const metric = scenario?.metrics.find((m) => m.name === cell.sample.metric && m.compare);
    if (!metric) continue;
    tested.push({
      key,
      host: cell.sample.host,
      mount: cell.sample.mount,
      scenario: cell.sample.scenario,
      series: seriesOf(cell.sample),
      metric,
      result: testPair(cell.values, then.values),
      better: metric.better,
      nameA: 'new',
    });
  }
  const decided = decideFamily(tested);
  return tested.map(({ better, nameA: _n, ...delta }, i) => {
    const result = decided[i] as Comparison;
    return { ...delta, result, kind: kindOf(result, better, threshold) };
  });
}

const KIND_ORDER: DeltaKind[] = [
  'regression',
  'within-threshold',
  'improvement',
  'no-difference',
  'not-enough-runs',
  'undefined',
];

const pct = (t: number) => `${Number((t * 100).toFixed(2))}%`;

/** Markdown (fits $GITHUB_STEP_SUMMARY): counts first, then every cell, regressions on top. */
export function deltasMarkdown(
  names: { baseline: string; now: string },
  deltas: readonly RunDelta[],
  threshold = 0,
  envChanges: readonly string[] = [],
): string {
  const count = (k: DeltaKind) => deltas.filter((d) => d.kind === k).length;
  // Names, labels and env values come from guests (a fio job name is anything): text, never markup.
  const md = markdownText;
  const lines = [
    `# layerlab compare: ${md(names.now)} (new) vs ${md(names.baseline)} (baseline)`,
    '',
    ...environmentNote(envChanges),
    `${deltas.length} cells: **${count('regression')} regression(s)**${threshold > 0 ? ` worse by more than ${pct(threshold)}, ${count('within-threshold')} worse by at most ${pct(threshold)}` : ''}, ${count('improvement')} improvement(s), ${count('no-difference')} with no consistent difference, ${count('not-enough-runs')} with not enough runs.`,
    '',
    '| scenario | host | mount | series | metric | n new/baseline | new vs baseline |',
    '|---|---|---|---|---|---|---|',
  ];
  const sorted = [...deltas].sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind));
  for (const d of sorted) {
    const flag = d.kind === 'regression' ? '**REGRESSION** ' : '';
    lines.push(
      `| ${md(d.scenario)} | ${md(d.host)} | ${md(d.mount)} | ${md(d.series)} | ${md(d.metric.name)} (${d.metric.better} is better) | ${d.result.nA}/${d.result.nB} | ${flag}${md(d.result.text)} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Where the environment changed since the baseline: said before the numbers,
 * field by field, so a new kernel or image is not read as a storage change.
 */
function environmentNote(changes: readonly string[]): string[] {
  if (!changes.length) return [];
  return [
    `**The environment changed since the baseline** (${changes.length} field(s)); differences below may come from it, not from storage. Once checked, \`layerlab history accept <run>\` makes this night the baseline.`,
    '',
    ...changes.map((c) => `- ${markdownLineStart(markdownText(c))}`),
    '',
  ];
}

/** The same comparison as data (`--json`). */
export function deltasJson(
  names: { baseline: string; baselineRuns: readonly string[]; now: string },
  deltas: readonly RunDelta[],
  threshold: number,
) {
  return {
    run: names.now,
    baseline: names.baseline,
    baselineRuns: names.baselineRuns,
    threshold,
    regressions: deltas.filter((d) => d.kind === 'regression').length,
    cells: deltas.map((d) => ({
      scenario: d.scenario,
      host: d.host,
      mount: d.mount,
      series: d.series,
      metric: d.metric.name,
      unit: d.metric.unit,
      better: d.metric.better,
      kind: d.kind,
      nNew: d.result.nA,
      nBaseline: d.result.nB,
      ratio: d.result.ratio ?? null,
      lo: d.result.lo ?? null,
      hi: d.result.hi ?? null,
      p: d.result.p ?? null,
      q: d.result.q ?? null,
      text: d.result.text,
    })),
  };
}
