/** Descriptive statistics of one cell's values. */
export interface CellStats {
  n: number;
  median: number;
  min: number;
  max: number;
  q1: number;
  q3: number;
}

/** Quantile by linear interpolation between order statistics (R type 7, like numpy's default). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (pos - lo);
}

export function describe(values: readonly number[]): CellStats {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    median: quantile(sorted, 0.5),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
    q1: quantile(sorted, 0.25),
    q3: quantile(sorted, 0.75),
  };
}

/** A median's distribution-free interval: two order statistics and the coverage they give. */
export interface MedianInterval {
  lo: number;
  hi: number;
  /** Exact coverage of [lo, hi] for any continuous distribution: 1 − 2·P(Binomial(n, ½) < k). */
  level: number;
}

/**
 * The interval of a median from its sample alone: the k-th smallest and k-th
 * largest value, k the largest with coverage at least `level` (the binomial
 * count of values below the true median). Below n = 6 no pair reaches 95%:
 * then min–max, with the lower coverage it has (n = 5: 93.75%), so a trend's
 * band never claims more than its n can.
 */
export function medianInterval(values: readonly number[], level = 0.95): MedianInterval {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return { lo: Number.NaN, hi: Number.NaN, level: 0 };
  // below[k] = P(Binomial(n, ½) ≤ k), in probabilities (no overflow).
  const below: number[] = [];
  let term = 0.5 ** n;
  let sum = 0;
  for (let k = 0; k <= n; k++) {
    sum += term;
    below.push(sum);
    term = (term * (n - k)) / (k + 1);
  }
  const coverage = (k: number) => (k === 0 ? 0 : 1 - 2 * (below[k - 1] as number));
  let k = 1;
  while (k + 1 <= Math.ceil(n / 2) && coverage(k + 1) >= level) k++;
  return { lo: sorted[k - 1] as number, hi: sorted[n - k] as number, level: Math.max(0, coverage(k)) };
}
