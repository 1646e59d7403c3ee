import { createHash } from 'node:crypto';
import { type Sample, scenarioLabels } from '../run/trial.js';
import type { MetricSpec } from '../scenarios/types.js';
import { type MedianDistribution, medianDistribution } from './bootstrap.js';
import { type Comparison, compareDistributions } from './compare.js';

/** The series a sample belongs to: its scenario labels joined (fio: "randread/read"). */
export function seriesOf(sample: Sample): string {
  return scenarioLabels(sample)
    .map(([, value]) => String(value))
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
  // A cell's bootstrap distribution is computed once, seeded by the cell's
  // name (order-independent), and reused by every comparison it is part of.
  const distributions = new Map<string, MedianDistribution>();
  const dist = (host: string, mount: string, ser: string, metric: string) => () => {
    const key = `${host}\0${mount}\0${ser}\0${metric}`;
    let d = distributions.get(key);
    if (!d) {
      const seed = createHash('sha256').update(key).digest().readUInt32LE(0);
      d = medianDistribution(values.get(key) ?? [], 2000, seed);
      distributions.set(key, d);
    }
    return d;
  };
  const cmp = (h1: string, m1: string, h2: string, m2: string, ser: string, metric: MetricSpec) =>
    compareDistributions(
      get(h1, m1, ser, metric.name),
      get(h2, m2, ser, metric.name),
      dist(h1, m1, ser, metric.name),
      dist(h2, m2, ser, metric.name),
      metric.better,
    );
  const rows: ComparisonRow[] = [];
  for (const ser of series) {
    for (const metric of metrics) {
      for (const host of order.hosts) {
        for (const [a, b] of pairs(order.mounts)) {
          if (!get(host, a, ser, metric.name).length && !get(host, b, ser, metric.name).length) continue;
          rows.push({
            axis: 'mount',
            within: host,
            a,
            b,
            series: ser,
            metric,
            result: cmp(host, a, host, b, ser, metric),
          });
        }
      }
      for (const mount of order.mounts) {
        for (const [a, b] of pairs(order.hosts)) {
          if (!get(a, mount, ser, metric.name).length && !get(b, mount, ser, metric.name).length) continue;
          rows.push({
            axis: 'profile',
            within: mount,
            a,
            b,
            series: ser,
            metric,
            result: cmp(a, mount, b, mount, ser, metric),
          });
        }
      }
    }
  }
  return rows;
}
