import { mulberry32 } from '../util/rng.js';
import { quantile } from './stats.js';

/**
 * Medians of `resamples` bootstrap resamples of a sorted sample. A resample
 * is drawn as counts per order statistic and the median read off the running
 * count — O(n) per resample with no sort, so 2,000 resamples of a few hundred
 * values stay cheap. The median interpolates like quantile() (type 7).
 */
function bootstrapMedians(sorted: Float64Array, resamples: number, random: () => number): Float64Array {
  const n = sorted.length;
  const counts = new Uint32Array(n);
  const out = new Float64Array(resamples);
  const lowRank = Math.floor((n - 1) / 2); // 0-based order statistics around the median
  const highRank = Math.ceil((n - 1) / 2);
  for (let r = 0; r < resamples; r++) {
    counts.fill(0);
    for (let i = 0; i < n; i++) (counts[Math.floor(random() * n)] as number)++;
    let seen = 0;
    let low = -1;
    let high = -1;
    for (let j = 0; j < n && high < 0; j++) {
      seen += counts[j] as number;
      if (low < 0 && seen > lowRank) low = j;
      if (seen > highRank) high = j;
    }
    out[r] = ((sorted[low] as number) + (sorted[high] as number)) / 2;
  }
  return out;
}

export interface MedianDistribution {
  n: number;
  median: number;
  /** Medians of the bootstrap resamples, in resample order. */
  medians: Float64Array;
}

/** The bootstrap distribution of one sample's median (seeded; reusable across comparisons). */
export function medianDistribution(values: readonly number[], resamples = 2000, seed = 1): MedianDistribution {
  const sorted = Float64Array.from(values).sort();
  return {
    n: sorted.length,
    median: quantile(sorted, 0.5),
    medians: bootstrapMedians(sorted, resamples, mulberry32(seed)),
  };
}

export interface RatioInterval {
  /** median(a) / median(b) */
  ratio: number;
  lo: number;
  hi: number;
  resamples: number;
}

/**
 * Percentile interval of the ratio of medians from two independent bootstrap
 * distributions: resample i of A over resample i of B. Undefined when B's
 * median is zero.
 */
export function ratioInterval(a: MedianDistribution, b: MedianDistribution, level = 0.95): RatioInterval | undefined {
  if (!a.n || !b.n || b.median === 0 || !Number.isFinite(a.median / b.median)) return undefined;
  const resamples = Math.min(a.medians.length, b.medians.length);
  const ratios = new Float64Array(resamples);
  for (let i = 0; i < resamples; i++) {
    const mb = b.medians[i] as number;
    // A resample whose median is zero has no ratio; count it as unbounded so the interval widens honestly.
    ratios[i] = mb === 0 ? Number.POSITIVE_INFINITY : (a.medians[i] as number) / mb;
  }
  ratios.sort();
  const tail = (1 - level) / 2;
  return { ratio: a.median / b.median, lo: quantile(ratios, tail), hi: quantile(ratios, 1 - tail), resamples };
}

/**
 * Percentile-bootstrap confidence interval of the ratio of medians of two
 * independent samples: resample each group with replacement, take the ratio
 * of the resampled medians, read the interval off the resulting distribution.
 * Seeded, so a report is reproducible.
 */
export function ratioOfMediansCI(
  a: readonly number[],
  b: readonly number[],
  { resamples = 2000, level = 0.95, seed = 1 }: { resamples?: number; level?: number; seed?: number } = {},
): RatioInterval | undefined {
  if (!a.length || !b.length) return undefined;
  return ratioInterval(medianDistribution(a, resamples, seed), medianDistribution(b, resamples, seed + 1), level);
}
