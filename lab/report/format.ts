import { describe } from '../analyze/stats.js';
import type { Sample } from '../record/samples.js';

/** A number with as many digits as a table needs. */
export const fmt = (v: number) => {
  if (!Number.isFinite(v)) return '–';
  const abs = Math.abs(v);
  if (abs >= 100) return v.toFixed(0);
  if (abs >= 10) return v.toFixed(1);
  return v.toFixed(2);
};

export function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = map.get(k);
    if (list) list.push(item);
    else map.set(k, [item]);
  }
  return map;
}

/** "median (min–max)" of one metric over a table cell's samples, and how many there were. */
export function medianCell(samples: readonly Sample[], metric: string): { text: string; n: number } {
  const values = samples.filter((s) => s.metric === metric).map((s) => s.value);
  if (!values.length) return { text: '–', n: 0 };
  const st = describe(values);
  return { text: `${fmt(st.median)} (${fmt(st.min)}–${fmt(st.max)})`, n: st.n };
}
