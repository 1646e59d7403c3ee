import type { Sample } from '../record/samples.js';
import type { MetricSpec } from '../scenarios/metric.js';
import { cellKey, seriesOf } from './comparison-rows.js';
import { kendallSmallestP, kendallTau } from './rank-correlation.js';
import type { OrderEffect } from './types.js';
import { ALPHA, benjaminiHochberg } from './verdict.js';

export type { OrderEffect } from './types.js';

/**
 * Order effects: the plan shuffles the cells in every repetition so that a
 * drift over the run (a warming cache, a filling disk, a throttled cloud
 * volume) cannot pass for a difference between configurations. This tests
 * whether there was one: per cell, Kendall's rank correlation between each
 * value and the position of its trial in the run.
 */

/** The fewest trials of a cell whose perfect order can reach ALPHA (5: 2/5! = 0.017; 4 reach only 0.083). */
export const MIN_DRIFT_TRIALS = (() => {
  let n = 2;
  while (kendallSmallestP(n) > ALPHA) n++;
  return n;
})();

/** Can this many trial positions show a drift at ALPHA? (Depends on the count alone, not on the values.) */
export const canShowDrift = (trials: number) => kendallSmallestP(trials) <= ALPHA;

/**
 * The drift test of every cell of one scenario's samples for the given
 * metrics (its compared ones), before any family control. `positions` maps
 * a trial to its place in the run (Journal.runOrder); a cell with a trial
 * the journal lacks (a hand-made or damaged record) falls back on the
 * repetition number for all its trials: the plan runs a cell's repetitions
 * in order, so that is the order they ran in unless a resume retried one.
 */
export function testOrderEffects(
  samples: readonly Sample[],
  metrics: readonly MetricSpec[],
  positions: ReadonlyMap<string, number>,
): OrderEffect[] {
  const cells = new Map<string, { metric: MetricSpec; samples: Sample[] }>();
  for (const s of samples) {
    const metric = metrics.find((m) => m.name === s.metric);
    if (!metric || !Number.isFinite(s.value)) continue;
    const key = cellKey({ ...s, series: seriesOf(s) });
    const cell = cells.get(key);
    if (cell) cell.samples.push(s);
    else cells.set(key, { metric, samples: [s] });
  }
  return [...cells.values()].map(({ metric, samples: cell }) => {
    const first = cell[0] as Sample;
    const fromJournal = cell.every((s) => positions.has(s.trial));
    const position = (s: Sample) => (fromJournal ? (positions.get(s.trial) as number) : s.rep);
    const x = cell.map(position);
    const trials = new Set(x).size;
    const base = {
      host: first.host,
      mount: first.mount,
      series: seriesOf(first),
      metric,
      n: cell.length,
      trials,
      order: fromJournal ? ('journal' as const) : ('repetition' as const),
    };
    if (!canShowDrift(trials)) return { ...base, verdict: 'too-few-trials' as const };
    const { tau, p } = kendallTau(
      x,
      cell.map((s) => s.value),
    );
    return { ...base, tau, p, verdict: 'no-drift' as const };
  });
}

/**
 * Drift verdicts for every cell of a report at once: one family (apart from
 * the comparisons, whose verdicts it leaves alone), its false discovery rate
 * controlled with Benjamini–Hochberg at ALPHA — the same control as the
 * comparisons'. Cells with too few trials stay out of the family (that
 * depends on their count alone). Items keep their order.
 */
export function controlOrderEffects<T extends OrderEffect>(items: readonly T[]): T[] {
  const tested = items.map((it, i) => ({ it, i })).filter(({ it }) => it.p !== undefined);
  const qs = benjaminiHochberg(tested.map(({ it }) => it.p as number));
  const qOf = new Map(tested.map(({ i }, k) => [i, qs[k] as number]));
  return items.map((it, i) => {
    const q = qOf.get(i);
    if (q === undefined) return it;
    return { ...it, q, family: tested.length, verdict: q <= ALPHA ? 'drift' : 'no-drift' };
  });
}
