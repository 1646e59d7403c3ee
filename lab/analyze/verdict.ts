import { type ShiftInterval, mannWhitneyU, rankSumP, runsNeeded, shiftEstimate, smallestP } from './rank-test.js';
import { describe } from './stats.js';
import type { Comparison } from './types.js';

export type { Comparison, Verdict } from './types.js';

/** Per-comparison level, and the false-discovery rate a report's family is controlled at. */
export const ALPHA = 0.05;

/** Equal runs per side at which a difference can be shown at all (4: 2/C(8,4) = 0.029). */
export const MIN_RUNS = runsNeeded(ALPHA);

/**
 * "No gap" claims: the 90% interval (two one-sided tests at 5%) must lie
 * within ±10% (ratio 1/1.1 to 1.1) for "no difference larger than 10%".
 */
export const EQUIVALENCE_MARGIN = 0.1;

const pct = (x: number) => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;
const num = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '∞');
/** Three decimals below 0.1, so 0.0499 and 0.0504 do not both read "0.05". */
export const pValue = (p: number) => (p < 0.001 ? '< 0.001' : p < 0.1 ? p.toFixed(3) : p.toFixed(2));

/** Coefficient of variation, robust: IQR/1.349 as sigma over the median. */
function robustCv(values: readonly number[]): number {
  const st = describe(values);
  return st.median === 0 ? Number.NaN : (st.q3 - st.q1) / 1.349 / Math.abs(st.median);
}

/**
 * The statistics of one pair, before any verdict: the exact rank-sum test
 * of A against B and the Hodges–Lehmann ratio with its intervals, all on the
 * log scale (a ratio is a shift of logarithms). Values must be positive.
 */
export function testPair(a: readonly number[], b: readonly number[]): Comparison {
  const base = { nA: a.length, nB: b.length };
  if (!a.length || !b.length) return { ...base, verdict: 'not-enough-runs', text: 'no runs on one side' };
  if ([...a, ...b].some((v) => !(v > 0) || !Number.isFinite(v))) {
    return { ...base, verdict: 'undefined', text: 'no ratio (a value is zero, negative or not a number)' };
  }
  const logA = a.map(Math.log);
  const logB = b.map(Math.log);
  const { shift, intervals } = shiftEstimate(logA, logB, [0.95, 0.9]);
  const [ci95, ci90] = intervals as [ShiftInterval, ShiftInterval];
  const n = Math.min(a.length, b.length);
  const cv = Math.max(robustCv(a), robustCv(b));
  // 2.8 = z(0.975) + z(0.8); the rank test needs 1/0.955 the runs of a t-test (its efficiency at normal noise).
  const minDetectable =
    claimableSizes(a.length, b.length) && Number.isFinite(cv)
      ? (2.8 * cv * Math.sqrt(2 / n)) / Math.sqrt(0.955)
      : undefined;
  return {
    ...base,
    ratio: Math.exp(shift),
    lo: Math.exp(ci95.lo),
    hi: Math.exp(ci95.hi),
    lo90: Math.exp(ci90.lo),
    hi90: Math.exp(ci90.hi),
    p: rankSumP(logA, logB),
    aAbove: mannWhitneyU(logA, logB) > (a.length * b.length) / 2,
    minDetectable,
    verdict: 'no-difference',
    text: '',
  };
}

/** Can m vs n runs show a difference at all at ALPHA? (Depends on the sizes alone.) */
const claimableSizes = (m: number, n: number) => smallestP(m, n) <= ALPHA;

/** Was this pair tested, and can its sizes show a difference at ALPHA? */
export const canClaim = (c: Comparison) => c.p !== undefined && claimableSizes(c.nA, c.nB);

/**
 * The verdict of a tested pair given its family-adjusted q: a difference is
 * claimed only when q ≤ ALPHA. Direction-aware: for latency and seconds,
 * lower is better.
 */
export function decide(
  c: Comparison,
  q: number | undefined,
  family: number,
  better: 'higher' | 'lower',
  nameA = 'A',
): Comparison {
  if (c.verdict === 'undefined' || c.ratio === undefined || c.p === undefined) return c;
  const ratioText = `ratio ${num(c.ratio)}`;
  if (!canClaim(c) || q === undefined) {
    return {
      ...c,
      q: undefined,
      family,
      verdict: 'not-enough-runs',
      text: `${c.nA} vs ${c.nB} runs cannot show a difference at 95% (smallest possible p ${pValue(smallestP(c.nA, c.nB))}; ${MIN_RUNS} per side can on their own, 5 or more among a report's many comparisons) — ${ratioText}`,
    };
  }
  const lo = c.lo as number;
  const hi = c.hi as number;
  const stats = `${ratioText}, CI ${num(lo)}–${num(hi)}, p ${pValue(c.p)}${family > 1 ? `, q ${pValue(q)}` : ''}`;
  // With ties the interval (untied cut counts) can touch 1 while the tied test rejects: claim only when both agree.
  const intervalExcludesOne = lo > 1 || hi < 1;
  if (q > ALPHA || !intervalExcludesOne) {
    const reason = c.p <= ALPHA && q > ALPHA ? ` once the report's ${family} comparisons are controlled` : '';
    return { ...c, q, family, verdict: 'no-difference', text: `no consistent difference${reason} (${stats})` };
  }
  const higher = c.aAbove === true;
  const aBetter = higher === (better === 'higher');
  const size = Math.abs(c.ratio - 1);
  return {
    ...c,
    q,
    family,
    verdict: aBetter ? 'a-better' : 'b-better',
    text: `${nameA} is ${pct(size)} ${higher ? 'higher' : 'lower'} — ${aBetter ? 'better' : 'worse'} (${stats})`,
  };
}

/**
 * Benjamini–Hochberg adjusted p-values (step-up; monotone; capped at 1).
 * Controls the expected share of false claims among all claims at the
 * level, for independent or positively dependent tests — what comparisons
 * sharing cells and hosts are.
 */
export function benjaminiHochberg(ps: readonly number[]): number[] {
  const m = ps.length;
  const order = ps.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p);
  const q = new Array<number>(m);
  let running = 1;
  for (let r = m - 1; r >= 0; r--) {
    const { p, i } = order[r] as { p: number; i: number };
    running = Math.min(running, (p * m) / (r + 1));
    q[i] = running;
  }
  return q;
}

/**
 * Verdicts for a family of tested pairs, controlled together. Pairs whose
 * sample sizes cannot reach ALPHA are left out of the family (they can never
 * be claimed, whatever the data: leaving them out depends on n alone).
 */
export function decideFamily<T extends { result: Comparison; better: 'higher' | 'lower'; nameA: string }>(
  items: readonly T[],
): Comparison[] {
  const testable = items.map((it, i) => ({ it, i })).filter(({ it }) => canClaim(it.result));
  const qs = benjaminiHochberg(testable.map(({ it }) => it.result.p as number));
  const qOf = new Map(testable.map(({ i }, k) => [i, qs[k] as number]));
  return items.map((it, i) => decide(it.result, qOf.get(i), testable.length, it.better, it.nameA));
}

/** One comparison on its own (a family of one). */
export function compare(
  a: readonly number[],
  b: readonly number[],
  better: 'higher' | 'lower',
  options: { nameA?: string } = {},
): Comparison {
  const tested = testPair(a, b);
  return decide(tested, canClaim(tested) ? tested.p : undefined, 1, better, options.nameA ?? 'A');
}

/** The 90% interval lies within ±margin: no difference larger than the margin (two one-sided tests at 5%). */
export function withinMargin(c: Comparison, margin = EQUIVALENCE_MARGIN): boolean {
  return c.lo90 !== undefined && c.hi90 !== undefined && c.lo90 >= 1 / (1 + margin) && c.hi90 <= 1 + margin;
}
