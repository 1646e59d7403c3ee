import type { ComparisonRow, ScenarioAnalysis } from '../analyze/types.js';
import { MIN_RUNS } from '../analyze/verdict.js';
import type { Scenario } from '../scenarios/types.js';
import { type Figure, inline } from './model.js';
import { MAX_DOTS_PER_CELL, dotsSpec, forestSpec } from './plots.js';

/** Does the report's matrix show this comparison (the baseline against a setup, in the matrix metric)? */
const inMatrix = (r: ComparisonRow, matrixMetric: string | undefined, baseline: string | undefined) =>
  r.axis === 'profile' && r.metric.name === matrixMetric && (r.a === baseline || r.b === baseline);

/** The workload a comparison belongs to, for grouping: series, metric, then the mount kind or host. */
const workloadKey = (r: ComparisonRow) => [r.series, r.metric.name, r.axis === 'profile' ? r.within : ''].join('\0');

/**
 * A scenario's plots: every repetition as a dot per configuration for each
 * headline metric, then the forest plot of the comparisons the matrix does
 * not show (mount kinds against each other, the other metrics, setups
 * against each other but the baseline), grouped by workload. Outcome
 * scenarios (permissions, lifetime) have no headline metric: no plots.
 */
export function scenarioFigures(
  scenario: Pick<Scenario, 'metrics' | 'matrixMetric'>,
  { samples, comparisons }: ScenarioAnalysis,
  mounts: readonly string[],
  baseline?: string,
): Figure[] {
  const metrics = scenario.metrics.filter((m) => m.compare);
  if (!metrics.length) return [];
  const dots = metrics.map(
    (metric): Figure => ({
      kind: 'figure',
      caption: inline`${metric.description} — every repetition a dot (a box plot above ${MAX_DOTS_PER_CELL} per cell), the tick is the median (${metric.better} is better)`,
      spec: dotsSpec(samples, metric, mounts),
    }),
  );
  const measured = comparisons.filter((r) => r.result.ratio !== undefined && r.result.verdict !== 'not-enough-runs');
  const shown = measured.filter((r) => !inMatrix(r, scenario.matrixMetric, baseline));
  // Grouped by workload in the order workloads first appear; within one, rows keep the analysis's order.
  const group = new Map<string, number>();
  for (const r of shown) if (!group.has(workloadKey(r))) group.set(workloadKey(r), group.size);
  const rows = shown
    .map((r, i) => ({ r, i }))
    .sort((x, y) => (group.get(workloadKey(x.r)) ?? 0) - (group.get(workloadKey(y.r)) ?? 0) || x.i - y.i)
    .map(({ r }) => r);
  const forest: Figure = rows.length
    ? {
        kind: 'figure',
        caption: inline`Typical ratios (Hodges–Lehmann) with 95% distribution-free intervals of the comparisons the matrix does not show, grouped by workload; red: a difference the report claims`,
        spec: forestSpec(rows),
      }
    : {
        kind: 'figure',
        caption: measured.length
          ? inline`No forest plot: the matrix shows every comparison with enough runs.`
          : inline`No forest plot: no comparison has enough runs (${MIN_RUNS} per side).`,
      };
  return [...dots, forest];
}
