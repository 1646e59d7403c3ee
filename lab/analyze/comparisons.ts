import type { Sample } from '../run/trial.js';
import type { MetricSpec } from '../scenarios/types.js';
import { type Comparison, compare } from './compare.js';

/** Core labels of a sample; every other label (fio: job, direction) names a series. */
const CORE = new Set([
  'run',
  'host',
  'profile',
  'scenario',
  'mount',
  'rep',
  'trial',
  'metric',
  'value',
  'unit',
  'timestamp',
]);

export function seriesOf(sample: Sample): string {
  return Object.keys(sample)
    .filter((k) => !CORE.has(k))
    .sort()
    .map((k) => String(sample[k]))
    .join('/');
}

export interface ComparisonRow {
  /** mount: two mount kinds on one host; profile: two hosts (profiles) on one mount kind. */
  axis: 'mount' | 'profile';
  /** The host (axis mount) or mount kind (axis profile) both sides share. */
  within: string;
  a: string;
  b: string;
  series: string;
  metric: MetricSpec;
  result: Comparison;
}

function pairs<T>(items: readonly T[]): [T, T][] {
  const out: [T, T][] = [];
  for (let i = 0; i < items.length; i++)
    for (let j = i + 1; j < items.length; j++) out.push([items[i] as T, items[j] as T]);
  return out;
}

/**
 * Every pair of mount kinds on the same host and every pair of hosts
 * (profiles) on the same mount kind, for each series and the given metrics.
 */
export function compareAll(
  samples: readonly Sample[],
  metrics: readonly MetricSpec[],
  order: { hosts: readonly string[]; mounts: readonly string[] },
): ComparisonRow[] {
  const values = new Map<string, number[]>();
  const series = new Set<string>();
  for (const s of samples) {
    const key = `${s.host}\0${s.mount}\0${seriesOf(s)}\0${s.metric}`;
    series.add(seriesOf(s));
    const list = values.get(key);
    if (list) list.push(s.value);
    else values.set(key, [s.value]);
  }
  const get = (host: string, mount: string, ser: string, metric: string) =>
    values.get(`${host}\0${mount}\0${ser}\0${metric}`) ?? [];
  const rows: ComparisonRow[] = [];
  for (const ser of series) {
    for (const metric of metrics) {
      for (const host of order.hosts) {
        for (const [a, b] of pairs(order.mounts)) {
          const va = get(host, a, ser, metric.name);
          const vb = get(host, b, ser, metric.name);
          if (!va.length && !vb.length) continue;
          rows.push({ axis: 'mount', within: host, a, b, series: ser, metric, result: compare(va, vb, metric.better) });
        }
      }
      for (const mount of order.mounts) {
        for (const [a, b] of pairs(order.hosts)) {
          const va = get(a, mount, ser, metric.name);
          const vb = get(b, mount, ser, metric.name);
          if (!va.length && !vb.length) continue;
          rows.push({
            axis: 'profile',
            within: mount,
            a,
            b,
            series: ser,
            metric,
            result: compare(va, vb, metric.better),
          });
        }
      }
    }
  }
  return rows;
}
