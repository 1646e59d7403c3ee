import type { ScenarioAnalysis } from '../analyze/types.js';
import { MIN_RUNS } from '../analyze/verdict.js';
import type { Scenario } from '../scenarios/types.js';
import { type Figure, inline } from './model.js';
import { MAX_DOTS_PER_CELL, dotsSpec, forestSpec } from './plots.js';

/**
 * A scenario's plots: every repetition as a dot per configuration for each
 * headline metric, then the forest plot of its comparisons. Outcome
 * scenarios (permissions, lifetime) have no headline metric: no plots.
 */
export function scenarioFigures(
  scenario: Pick<Scenario, 'metrics'>,
  { samples, comparisons }: ScenarioAnalysis,
  mounts: readonly string[],
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
  const rows = comparisons.filter((r) => r.result.ratio !== undefined && r.result.verdict !== 'not-enough-runs');
  const forest: Figure = rows.length
    ? {
        kind: 'figure',
        caption: inline`Typical ratios (Hodges–Lehmann) with 95% distribution-free intervals; red: a difference the report claims`,
        spec: forestSpec(rows),
      }
    : {
        kind: 'figure',
        caption: inline`No forest plot: no comparison has enough runs (${MIN_RUNS} per side).`,
      };
  return [...dots, forest];
}
