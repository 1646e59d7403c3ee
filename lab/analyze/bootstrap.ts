import { mulberry32 } from '../util/rng.js';
import { quantile } from './stats.js';

function median(values: readonly number[]): number {
  return quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

function resampleMedian(values: readonly number[], random: () => number, scratch: number[]): number {
  for (let i = 0; i < values.length; i++) scratch[i] = values[Math.floor(random() * values.length)] as number;
  scratch.sort((a, b) => a - b);
  return quantile(scratch, 0.5);
}

export interface RatioInterval {
  /** median(a) / median(b) */
  ratio: number;
  lo: number;
  hi: number;
  resamples: number;
}

/**
 * Percentile-bootstrap confidence interval of the ratio of medians of two
 * independent samples: resample each group with replacement, take the ratio
 * of the resampled medians, read the interval off the resulting distribution.
 * Seeded, so a report is reproducible. Undefined when a median is zero.
 */
export function ratioOfMediansCI(
  a: readonly number[],
  b: readonly number[],
  { resamples = 2000, level = 0.95, seed = 1 }: { resamples?: number; level?: number; seed?: number } = {},
): RatioInterval | undefined {
  if (!a.length || !b.length) return undefined;
  const mb = median(b);
  const ma = median(a);
  if (mb === 0 || !Number.isFinite(ma / mb)) return undefined;
  const random = mulberry32(seed);
  const sa = new Array<number>(a.length);
  const sb = new Array<number>(b.length);
  const ratios: number[] = [];
  for (let i = 0; i < resamples; i++) {
    const rb = resampleMedian(b, random, sb);
    const ra = resampleMedian(a, random, sa);
    // A resample whose median is zero has no ratio; count it as unbounded so the interval widens honestly.
    ratios.push(rb === 0 ? Number.POSITIVE_INFINITY : ra / rb);
  }
  ratios.sort((x, y) => x - y);
  const tail = (1 - level) / 2;
  return { ratio: ma / mb, lo: quantile(ratios, tail), hi: quantile(ratios, 1 - tail), resamples };
}
