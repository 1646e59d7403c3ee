import { type MedianDistribution, medianDistribution, ratioInterval } from './bootstrap.js';
import { describe } from './stats.js';

export const MIN_RUNS = 3;

export type Verdict = 'a-better' | 'b-better' | 'no-difference' | 'not-enough-runs' | 'undefined';

export interface Comparison {
  nA: number;
  nB: number;
  ratio?: number;
  lo?: number;
  hi?: number;
  verdict: Verdict;
  /** Smallest relative difference this n and noise could reliably show (80% power, 5% two-sided). */
  minDetectable?: number;
  text: string;
}

const pct = (x: number) => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;
const num = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '∞');

/** Coefficient of variation, robust: IQR/1.349 as sigma over the median. */
function robustCv(values: readonly number[]): number {
  const st = describe(values);
  return st.median === 0 ? Number.NaN : (st.q3 - st.q1) / 1.349 / Math.abs(st.median);
}

/**
 * Compares A with B on one metric: ratio of medians A/B with a bootstrap CI.
 * A difference is claimed only when the interval excludes 1; below MIN_RUNS
 * per side nothing is claimed at all. `better` makes it direction-aware
 * (latency and seconds: lower is better).
 */
export function compare(
  a: readonly number[],
  b: readonly number[],
  better: 'higher' | 'lower',
  options: { resamples?: number; seed?: number; nameA?: string } = {},
): Comparison {
  const { resamples = 2000, seed = 1, nameA } = options;
  const dist = (values: readonly number[], s: number) => () => medianDistribution(values, resamples, s);
  return compareDistributions(a, b, dist(a, seed), dist(b, seed + 1), better, nameA);
}

/**
 * compare() over bootstrap distributions the caller may have computed once
 * and reused (a cell takes part in several comparisons).
 */
export function compareDistributions(
  a: readonly number[],
  b: readonly number[],
  distA: () => MedianDistribution,
  distB: () => MedianDistribution,
  better: 'higher' | 'lower',
  nameA = 'A',
): Comparison {
  const base = { nA: a.length, nB: b.length };
  if (a.length < MIN_RUNS || b.length < MIN_RUNS) {
    return {
      ...base,
      verdict: 'not-enough-runs',
      text: `not enough runs (n = ${a.length} vs ${b.length}; need ${MIN_RUNS})`,
    };
  }
  const ci = ratioInterval(distA(), distB());
  if (!ci) return { ...base, verdict: 'undefined', text: 'no ratio (a median is zero)' };
  const n = Math.min(a.length, b.length);
  const cv = Math.max(robustCv(a), robustCv(b));
  const minDetectable = Number.isFinite(cv) ? 2.8 * cv * Math.sqrt(2 / n) : undefined;
  const interval = `CI ${num(ci.lo)}–${num(ci.hi)}`;
  const common = { ...base, ratio: ci.ratio, lo: ci.lo, hi: ci.hi, minDetectable };
  if (ci.lo <= 1 && ci.hi >= 1) {
    return {
      ...common,
      verdict: 'no-difference',
      text: `no consistent difference (ratio ${num(ci.ratio)}, ${interval})`,
    };
  }
  const higher = ci.lo > 1;
  const aBetter = higher === (better === 'higher');
  const size = higher ? ci.ratio - 1 : 1 - ci.ratio;
  return {
    ...common,
    verdict: aBetter ? 'a-better' : 'b-better',
    text: `${nameA} is ${pct(size)} ${higher ? 'higher' : 'lower'} — ${aBetter ? 'better' : 'worse'} (ratio ${num(ci.ratio)}, ${interval})`,
  };
}
