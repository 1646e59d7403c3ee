import { type Sample, scenarioLabels } from '../record/samples.js';
import type { MetricSpec } from '../scenarios/types.js';
import type { Comparison, ComparisonRow } from './types.js';
import { decideFamily, testPair } from './verdict.js';

export type { ComparisonRow } from './types.js';

/** The series a sample belongs to: its scenario labels joined (fio: "randread/read"). */
export function seriesOf(sample: Sample): string {
  return scenarioLabels(sample)
    .map(([, value]) => String(value))
    .join('/');
}

function pairs<T>(items: readonly T[]): [T, T][] {
  const out: [T, T][] = [];
  for (let i = 0; i < items.length; i++)
    for (let j = i + 1; j < items.length; j++) out.push([items[i] as T, items[j] as T]);
  return out;
}

/** One configuration's values of one metric: scenario, host, mount kind, series. */
export interface Cell {
  scenario: string;
  host: string;
  mount: string;
  series: string;
  metric: string;
}

export function cellKey(c: Cell): string {
  return [c.scenario, c.host, c.mount, c.series, c.metric].join('\0');
}

/** Samples grouped into cells (the first sample of each kept for its labels). */
export function groupCells(samples: readonly Sample[]): Map<string, { sample: Sample; values: number[] }> {
  const cells = new Map<string, { sample: Sample; values: number[] }>();
  for (const s of samples) {
    const key = cellKey({ ...s, series: seriesOf(s) });
    const cell = cells.get(key);
    if (cell) cell.values.push(s.value);
    else cells.set(key, { sample: s, values: [s.value] });
  }
  return cells;
}

/** What a scenario's samples are compared across, in the order rows are made. */
export interface CompareOrder {
  hosts: readonly string[];
  mounts: readonly string[];
  /** Series compared with each other on each host and mount kind (Scenario.compareSeries), in this order. */
  series?: { label: string; order: readonly string[] };
}

/**
 * Every pair of mount kinds on the same host and every pair of hosts
 * (profiles) on the same mount kind, for each series and the given metrics
 * (samples of one scenario); then, when the scenario compares its series
 * with each other, every pair of them on each host.
 */
export function compareAll(
  samples: readonly Sample[],
  metrics: readonly MetricSpec[],
  order: CompareOrder,
): ComparisonRow[] {
  const cells = groupCells(samples);
  const scenario = samples[0]?.scenario ?? '';
  const series = [...new Set(samples.map(seriesOf))];
  const valuesOf = (c: Cell) => cells.get(cellKey(c))?.values ?? [];
  const rows: ComparisonRow[] = [];
  const add = (
    axis: ComparisonRow['axis'],
    within: string,
    a: string,
    b: string,
    cellA: Cell,
    cellB: Cell,
    metric: MetricSpec,
  ) => {
    const va = valuesOf(cellA);
    const vb = valuesOf(cellB);
    if (!va.length && !vb.length) return;
    rows.push({ axis, within, a, b, series: cellA.series, metric, result: testPair(va, vb) });
  };
  for (const ser of series) {
    for (const metric of metrics) {
      const cell = (host: string, mount: string): Cell => ({ scenario, host, mount, series: ser, metric: metric.name });
      for (const host of order.hosts) {
        for (const [a, b] of pairs(order.mounts)) add('mount', host, a, b, cell(host, a), cell(host, b), metric);
      }
      for (const mount of order.mounts) {
        for (const [a, b] of pairs(order.hosts)) add('profile', mount, a, b, cell(a, mount), cell(b, mount), metric);
      }
    }
  }
  if (order.series) rows.push(...compareSeries(cells, scenario, metrics, order, order.series));
  return rows;
}

/**
 * Every pair of a scenario's series (in its order) on each host and mount
 * kind: backup's methods against each other. The row's `series` is the
 * label, its sides the series; the rows join the report's family like any
 * other (analysis.ts controls them all at once).
 */
function compareSeries(
  cells: ReturnType<typeof groupCells>,
  scenario: string,
  metrics: readonly MetricSpec[],
  order: CompareOrder,
  series: NonNullable<CompareOrder['series']>,
): ComparisonRow[] {
  const rows: ComparisonRow[] = [];
  const valuesOf = (host: string, mount: string, ser: string, metric: string) =>
    cells.get(cellKey({ scenario, host, mount, series: ser, metric }))?.values ?? [];
  for (const metric of metrics) {
    for (const host of order.hosts) {
      for (const mount of order.mounts) {
        for (const [a, b] of pairs(series.order)) {
          const va = valuesOf(host, mount, a, metric.name);
          const vb = valuesOf(host, mount, b, metric.name);
          if (!va.length && !vb.length) continue;
          rows.push({ axis: 'series', within: host, a, b, series: series.label, metric, result: testPair(va, vb) });
        }
      }
    }
  }
  return rows;
}

/**
 * Verdicts for every row of a report at once: one family, its false
 * discovery rate controlled (Benjamini–Hochberg at ALPHA). Rows keep their
 * order; each result carries its own p and the family's q.
 */
export function controlFamily<T extends ComparisonRow>(rows: readonly T[]): T[] {
  const decided = decideFamily(rows.map((r) => ({ result: r.result, better: r.metric.better, nameA: r.a })));
  return rows.map((r, i) => ({ ...r, result: decided[i] as Comparison }));
}
