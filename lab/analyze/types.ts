/**
 * The analysis model's types: what the statistics (lab/analyze, L1) compute
 * and the report (its model, the scenarios' sections) reads. Types only, so
 * the layers below the statistics can name them.
 */
import type { Sample } from '../record/samples.js';
import type { MetricSpec } from '../scenarios/metric.js';

export type Verdict = 'a-better' | 'b-better' | 'no-difference' | 'not-enough-runs' | 'undefined';

export interface Comparison {
  nA: number;
  nB: number;
  /** Typical ratio A/B: exp of the Hodges–Lehmann shift of the logarithms. */
  ratio?: number;
  /** 95% distribution-free interval of that ratio; 0 and Infinity where this n cannot bound it. */
  lo?: number;
  hi?: number;
  /** 90% interval, for equivalence ("no gap") statements. */
  lo90?: number;
  hi90?: number;
  /** Exact two-sided rank-sum p-value of this comparison alone. */
  p?: number;
  /** A tends above B (U > m·n/2): the direction, read from the test itself (the ratio can be 1 with ties). */
  aAbove?: boolean;
  /** p adjusted over the report's family (Benjamini–Hochberg); the verdict reads this. */
  q?: number;
  /** How many comparisons the family held (1 for a comparison on its own). */
  family?: number;
  verdict: Verdict;
  /** Smallest relative difference this n and noise could reliably show (80% power, 5% two-sided). */
  minDetectable?: number;
  text: string;
}

export interface ComparisonRow {
  /**
   * mount: two mount kinds on one host; profile: two hosts (profiles) on one
   * mount kind; series: two series of a scenario on one host — ways of doing
   * the same work, such as backup's methods (Scenario.compareSeries).
   */
  axis: 'mount' | 'profile' | 'series';
  /** The host (axes mount and series) or mount kind (axis profile) both sides share. */
  within: string;
  a: string;
  b: string;
  /** The series both sides belong to; on the series axis, the label whose values a and b are (backup: "method"). */
  series: string;
  metric: MetricSpec;
  result: Comparison;
}

/** drift: the values moved with their trials' position in the run; too-few-trials: n cannot show it. */
export type DriftVerdict = 'drift' | 'no-drift' | 'too-few-trials';

/**
 * Does one cell's value drift with its trial's position in the run? Kendall's
 * rank correlation of value against position (order-effects.ts), p controlled
 * across the report's cells like the comparisons (a family of its own).
 */
export interface OrderEffect {
  host: string;
  mount: string;
  series: string;
  metric: MetricSpec;
  /** Values tested. */
  n: number;
  /** Distinct trial positions they came from (what decides whether a drift can be shown at all). */
  trials: number;
  /**
   * Where the positions come from: the journal (the order trials ran in), or
   * — when the journal lacks one of the cell's trials — the repetition
   * number, the order the plan runs a cell's trials in.
   */
  order: 'journal' | 'repetition';
  /** Kendall's tau-b of value against position: above 0, the value rose over the run. */
  tau?: number;
  /** Two-sided p of "no drift" (exact at these sizes). */
  p?: number;
  /** p adjusted over the report's testable cells (Benjamini–Hochberg); the verdict reads this. */
  q?: number;
  /** How many cells the family held. */
  family?: number;
  verdict: DriftVerdict;
}

export interface ScenarioAnalysis {
  /** As the run recorded it: a scenario this version may no longer know. */
  name: string;
  samples: Sample[];
  comparisons: ComparisonRow[];
  /** Per compared cell: did its values drift with the position of their trials in the run? */
  orderEffects: OrderEffect[];
}
