import type { RecordedLab } from '../record/load.js';
import type { Sample } from '../record/samples.js';
import { groupBy, medianCell } from './format.js';
import { type Align, type Cell, type Section, type SectionContext, plain, table } from './model.js';

/**
 * Table helpers for the scenarios' report sections (lab/scenarios/<name>/report.ts):
 * one sub-section per host, rows per series and mount kind, cells as
 * median (min–max) over repetitions. Only type imports from the record: the
 * scenario registry loads this module.
 */

export interface Column {
  metric: string;
  title: string;
}

/** One "### host (profile)" sub-section per host that has samples, in the lab's host order. */
export function perHost(
  lab: RecordedLab,
  samples: readonly Sample[],
  body: (hostSamples: Sample[]) => Section['blocks'],
): Section[] {
  const byHost = groupBy(samples, (s) => s.host);
  return lab.hosts.flatMap(({ name }) => {
    const hostSamples = byHost.get(name);
    if (!hostSamples) return [];
    return [
      { level: 3 as const, title: plain(`${name} (${hostSamples[0]?.profile ?? ''})`), blocks: body(hostSamples) },
    ];
  });
}

/** The mount kinds present in `samples`: the lab's order first, then any the lab no longer lists. */
export function mountOrder(lab: RecordedLab, samples: readonly Sample[]): string[] {
  const present = new Set(samples.map((s) => s.mount));
  return [...lab.mounts, ...[...present].filter((m) => !lab.mounts.includes(m))].filter((m) => present.has(m));
}

/** Rows of a series (fio job, lifecycle phase, backup method) in this order; others after. */
export interface Series {
  label: string;
  title: string;
  order: readonly string[];
}

/** Per host: one row per series (in its order) and mount kind, one column per metric, and n. */
export function metricTable(
  { lab, samples }: SectionContext,
  series: Series | undefined,
  columns: readonly Column[],
): Section[] {
  const mounts = mountOrder(lab, samples);
  const showMount = !(mounts.length === 1 && mounts[0] === 'none');
  const labels = [...(series ? [series.title] : []), ...(showMount ? ['mount'] : [])];
  const header = [...labels, ...columns.map((c) => c.title), 'n'];
  const align = header.map((_, i): Align => (i < labels.length ? 'left' : 'right'));
  const rank = (key: string) => (series?.order.indexOf(key) ?? -1) + 1 || 99;
  return perHost(lab, samples, (hostSamples) => {
    const rows: Cell[][] = [];
    const bySeries = groupBy(hostSamples, (s) => (series ? String(s[series.label] ?? '') : ''));
    const keys = [...bySeries.keys()].sort((a, b) => rank(a) - rank(b));
    for (const key of keys) {
      for (const mount of mounts) {
        const cellSamples = (bySeries.get(key) ?? []).filter((s) => s.mount === mount);
        if (!cellSamples.length) continue;
        const cells = columns.map((c) => medianCell(cellSamples, c.metric));
        rows.push(
          [
            ...(series ? [key] : []),
            ...(showMount ? [mount] : []),
            ...cells.map((c) => c.text),
            String(cells[0]?.n ?? 0),
          ].map(plain),
        );
      }
    }
    return [table(header, align, rows)];
  });
}
