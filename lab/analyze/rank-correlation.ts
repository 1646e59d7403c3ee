/**
 * Kendall's rank correlation between two paired lists, with a two-sided p
 * that is exact at the sizes one cell of a run has.
 *
 * Why Kendall's tau and not Spearman's rho: the drift check (order-effects.ts)
 * runs on one cell's repetitions, typically 3 to 10 values. Kendall's S
 * (concordant minus discordant pairs), when one list has no ties, is a
 * function of the inversions of the other list put in the first one's
 * order, and the distribution of those under "no association" is the
 * q-multinomial coefficient of the other list's ties — a short recursion,
 * exact at any n, ties in the measured values included (a metric in whole
 * seconds). Spearman's rho has no such recursion (exact only by listing all
 * n! orders), and its normal or t approximations are poor below n ≈ 10 —
 * exactly where a cell is. Only when both lists have ties (two samples of
 * one trial with tied values) are the orders listed, up to TIED_EXACT_LIMIT
 * (8! = 40 320); above it, S is normal-approximated with Kendall's
 * tie-corrected variance and a continuity correction (as R's cor.test),
 * good from n ≈ 8.
 */
import { normalUpperTail } from './rank-test.js';

export interface RankCorrelation {
  /** Pairs used. */
  n: number;
  /** Concordant minus discordant pairs (a tie in either list counts neither). */
  s: number;
  /** Kendall's tau-b: S over its largest possible value given the ties; 0 when either list is constant. */
  tau: number;
  /** Two-sided p of "no association": exact, or normal-approximated when both lists have ties above TIED_EXACT_LIMIT. */
  p: number;
}

/** Above this many pairs with ties in both lists, listing every order (n!) gets slow; the normal approximation is good there. */
const TIED_EXACT_LIMIT = 8;

const sign = (d: number) => (d > 0 ? 1 : d < 0 ? -1 : 0);

function kendallS(x: readonly number[], y: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < x.length; i++)
    for (let j = i + 1; j < x.length; j++)
      s += sign((x[j] as number) - (x[i] as number)) * sign((y[j] as number) - (y[i] as number));
  return s;
}

/** Sizes of the groups of equal values (1 for a value that is unique). */
function tieGroups(values: readonly number[]): number[] {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.values()];
}

const pairsOf = (t: number) => (t * (t - 1)) / 2;

/**
 * The q-binomial [n choose k]_q as a distribution: P(d) that k items of one
 * kind placed at random among n − k of another stand before d of them, from
 * [n, k] = [n − 1, k − 1] + q^k [n − 1, k] with the weights k/n and (n − k)/n
 * (the binomial coefficients' ratio). Probabilities, not counts: no overflow.
 */
function qBinomial(n: number, k: number): Float64Array {
  // row[j]: the distribution for m items, j of them of the first kind; m grows from 0 to n.
  let row: Float64Array[] = [new Float64Array([1])];
  for (let m = 1; m <= n; m++) {
    const next: Float64Array[] = [];
    for (let j = 0; j <= Math.min(m, k); j++) {
      const f = new Float64Array(j * (m - j) + 1);
      if (j === 0 || j === m) f[0] = 1;
      else {
        const last = row[j - 1] as Float64Array; // the m-th item is of the first kind: no inversion added
        const other = row[j] as Float64Array; // of the other kind: it stands after the j first-kind items
        for (let d = 0; d < f.length; d++) {
          const a = d < last.length ? (last[d] as number) : 0;
          const b = d - j >= 0 && d - j < other.length ? (other[d - j] as number) : 0;
          f[d] = (j / m) * a + ((m - j) / m) * b;
        }
      }
      next.push(f);
    }
    row = next;
  }
  return row[k] as Float64Array;
}

function convolve(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length - 1);
  for (let i = 0; i < a.length; i++)
    for (let j = 0; j < b.length; j++) out[i + j] = (out[i + j] as number) + (a[i] as number) * (b[j] as number);
  return out;
}

const inversionCache = new Map<string, Float64Array>();

/**
 * P(D = d) for the inversions D of a random arrangement of a list whose
 * equal values come in groups of the given sizes (all 1: a permutation, the
 * Mahonian numbers over n!): the q-multinomial, a product of q-binomials —
 * group i placed among the groups before it adds its own inversions,
 * independently. Cached by the tie pattern: a report tests many cells of the
 * same size.
 */
export function inversionDistribution(groups: number | readonly number[]): Float64Array {
  const sizes = typeof groups === 'number' ? Array<number>(groups).fill(1) : [...groups].sort((a, b) => a - b);
  const key = sizes.join(',');
  const hit = inversionCache.get(key);
  if (hit) return hit;
  let dist: Float64Array = new Float64Array([1]);
  let placed = 0;
  for (const t of sizes) {
    placed += t;
    dist = convolve(dist, qBinomial(placed, t));
  }
  inversionCache.set(key, dist);
  return dist;
}

/**
 * Exact two-sided p when x has no ties: with the pairs in x's order,
 * S = P − 2D for the P pairs untied in y and the inversions D of y, whose
 * distribution is symmetric: P(|S| ≥ |s|) = 2·P(D ≤ (P − |s|)/2).
 */
function oneSidedTiesP(yGroups: readonly number[], s: number): number {
  const n = yGroups.reduce((a, t) => a + t, 0);
  const untiedPairs = pairsOf(n) - yGroups.reduce((a, t) => a + pairsOf(t), 0);
  const fewer = Math.round((untiedPairs - Math.abs(s)) / 2); // the fewer of discordant and concordant pairs
  const dist = inversionDistribution(yGroups);
  let tail = 0;
  for (let d = 0; d <= fewer; d++) tail += dist[d] as number;
  return Math.min(1, 2 * tail);
}

const tiedCache = new Map<string, Map<number, number>>();

/**
 * Exact two-sided p with ties in both lists: every order of the y values
 * over the x values, equally likely under "no association" (the
 * permutation test of S given both lists' ties). The distribution depends
 * only on the tie patterns, so it is cached by them.
 */
function bothTiesP(x: readonly number[], y: readonly number[], s: number): number {
  const order = x.map((_, i) => i).sort((a, b) => (x[a] as number) - (x[b] as number));
  const xs = order.map((i) => x[i] as number);
  // Canonical values (ranks of the distinct values) make the key independent of the numbers themselves.
  const rank = (values: readonly number[]) => {
    const distinct = [...new Set(values)].sort((a, b) => a - b);
    return values.map((v) => distinct.indexOf(v));
  };
  const xr = rank(xs);
  const yr = rank(order.map((i) => y[i] as number)).sort((a, b) => a - b);
  const key = `${xr.join(',')}|${yr.join(',')}`;
  let counts = tiedCache.get(key);
  if (!counts) {
    counts = new Map();
    // Heap's algorithm over the y ranks: n! orders, duplicates of tied values counted with their multiplicity.
    const a = [...yr];
    const c = new Array<number>(a.length).fill(0);
    const tally = () => {
      const sp = kendallS(xr, a);
      counts?.set(sp, (counts.get(sp) ?? 0) + 1);
    };
    tally();
    for (let i = 1; i < a.length; ) {
      if ((c[i] as number) < i) {
        const j = i % 2 ? (c[i] as number) : 0;
        [a[i], a[j]] = [a[j] as number, a[i] as number];
        tally();
        c[i] = (c[i] as number) + 1;
        i = 1;
      } else {
        c[i] = 0;
        i++;
      }
    }
    tiedCache.set(key, counts);
  }
  let extreme = 0;
  let total = 0;
  for (const [sp, count] of counts) {
    total += count;
    if (Math.abs(sp) >= Math.abs(s)) extreme += count;
  }
  return Math.min(1, extreme / total);
}

/** Normal approximation of S with ties (Kendall 1970, eq. 4.3) and a continuity correction of 1. */
function normalP(n: number, s: number, tx: readonly number[], ty: readonly number[]): number {
  const sum = (ts: readonly number[], f: (t: number) => number) => ts.reduce((acc, t) => acc + f(t), 0);
  const v0 = n * (n - 1) * (2 * n + 5);
  const vt = sum(tx, (t) => t * (t - 1) * (2 * t + 5));
  const vu = sum(ty, (t) => t * (t - 1) * (2 * t + 5));
  const variance =
    (v0 - vt - vu) / 18 +
    (sum(tx, (t) => t * (t - 1) * (t - 2)) * sum(ty, (t) => t * (t - 1) * (t - 2))) / (9 * n * (n - 1) * (n - 2)) +
    (sum(tx, (t) => t * (t - 1)) * sum(ty, (t) => t * (t - 1))) / (2 * n * (n - 1));
  if (variance <= 0) return 1;
  const z = Math.max(0, Math.abs(s) - 1) / Math.sqrt(variance);
  return Math.min(1, 2 * normalUpperTail(z));
}

/**
 * Kendall's tau-b of x and y (paired by index) and the two-sided p of "no
 * association". Positive: y rises with x.
 */
export function kendallTau(x: readonly number[], y: readonly number[]): RankCorrelation {
  if (x.length !== y.length) throw new Error(`kendallTau: ${x.length} x values but ${y.length} y values`);
  const n = x.length;
  if (n < 2) return { n, s: 0, tau: 0, p: 1 };
  const s = kendallS(x, y);
  const tx = tieGroups(x);
  const ty = tieGroups(y);
  const pairs = pairsOf(n);
  const denominator = Math.sqrt(
    (pairs - tx.reduce((a, t) => a + pairsOf(t), 0)) * (pairs - ty.reduce((a, t) => a + pairsOf(t), 0)),
  );
  // A constant list carries no order: nothing to correlate, nothing to reject.
  if (denominator === 0) return { n, s, tau: 0, p: 1 };
  // Kendall's S is symmetric in x and y: whichever list has no ties orders the other.
  const p =
    tx.length === n
      ? oneSidedTiesP(ty, s)
      : ty.length === n
        ? oneSidedTiesP(tx, s)
        : n <= TIED_EXACT_LIMIT
          ? bothTiesP(x, y, s)
          : normalP(n, s, tx, ty);
  return { n, s, tau: s / denominator, p };
}

/** The smallest two-sided p n untied pairs can produce (a perfect order either way): 2 / n!. */
export function kendallSmallestP(n: number): number {
  if (n < 2) return 1;
  let factorial = 1;
  for (let k = 2; k <= n; k++) factorial *= k;
  return Math.min(1, 2 / factorial);
}
