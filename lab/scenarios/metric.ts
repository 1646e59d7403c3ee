/**
 * What a scenario measures, metric by metric: the statistics (which side is
 * better) and the report (names, units) read it. Apart from the scenario
 * contract (types.ts) so the analysis model can name it without a circle.
 */
export interface MetricSpec {
  /** Metric name as it appears in samples. */
  name: string;
  unit: string;
  better: 'higher' | 'lower';
  description: string;
  /** Compared between configurations in the report (the headline metrics). */
  compare?: boolean;
}
