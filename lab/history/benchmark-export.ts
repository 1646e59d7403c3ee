import { groupCells, seriesOf } from '../analyze/comparison-rows.js';
import { describe } from '../analyze/stats.js';
import type { Sample } from '../record/samples.js';
import type { MetricSpec } from '../scenarios/metric.js';

/**
 * One entry of github-action-benchmark's custom formats
 * (`tool: customBiggerIsBetter` / `customSmallerIsBetter`): an array of
 * { name, unit, value, range?, extra? } per file. Names are
 * "scenario/host/mount/series/metric", so its charts group by the slashes.
 */
export interface BenchmarkEntry {
  name: string;
  unit: string;
  value: number;
  range: string;
  extra: string;
}

/** A cell's name, "scenario/host/mount/series/metric": benchmark entries, flagged cells and trend panels use it. */
export function cellName(c: { scenario: string; host: string; mount: string; series: string; metric: string }): string {
  return [c.scenario, c.host, c.mount, c.series, c.metric].filter(Boolean).join('/');
}

/**
 * A run's headline metrics as two github-action-benchmark files, one per
 * direction (the tool takes one direction per file): each cell's median
 * over its repetitions, its spread as ± half the range, n and min–max in extra.
 */
export function benchmarkEntries(
  samples: readonly Sample[],
  runId: string,
  /** The metric of a scenario as the registry declares it (passed in: this module sits below the registry). */
  metricOf: (scenario: string, metric: string) => MetricSpec | undefined,
) {
  const bigger: BenchmarkEntry[] = [];
  const smaller: BenchmarkEntry[] = [];
  for (const { sample, values } of groupCells(samples).values()) {
    const metric = metricOf(sample.scenario, sample.metric);
    if (!metric?.compare) continue;
    const st = describe(values);
    const round = (x: number) => Number(x.toPrecision(6));
    const entry: BenchmarkEntry = {
      name: cellName({ ...sample, series: seriesOf(sample) }),
      unit: metric.unit,
      value: round(st.median),
      range: `± ${round((st.max - st.min) / 2)}`,
      extra: `run ${runId}; n=${values.length}; min ${round(st.min)}, max ${round(st.max)}`,
    };
    (metric.better === 'higher' ? bigger : smaller).push(entry);
  }
  const byName = (a: BenchmarkEntry, b: BenchmarkEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return { bigger: bigger.sort(byName), smaller: smaller.sort(byName) };
}
