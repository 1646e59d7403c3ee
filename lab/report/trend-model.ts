import { csvCell } from '../util/safe-text.js';

/**
 * Trends across nights as data (`layerlab history plot`): per lab, its
 * nights in order and one panel per cell (scenario, host, mount kind,
 * series, headline metric) with the cell's median and interval each night.
 * Built from the history (lab/history/trends.ts); drawn by trend-html.ts,
 * written as CSV and JSON here. Every name in it can come from a guest.
 */

export interface TrendNight {
  run: string;
  /** What the x axis says: the start time (UTC, minutes), else the run id. */
  label: string;
  startedAt: string | null;
  /** Its nightly comparison flagged a regression in at least one cell. */
  flagged: boolean;
  /** When a person accepted it as the new baseline (`layerlab history accept`), or null. */
  acceptedAt: string | null;
  /** Every planned trial done, none failed, not interrupted (a baseline candidate). */
  complete: boolean;
  /** What changed since the night before, lab-wide: target, hosts, scenario parameters. */
  changes: string[];
}

export interface TrendPoint {
  /** Index into the lab's nights. */
  night: number;
  n: number;
  median: number;
  /** The median's distribution-free interval (lab/analyze/stats.ts medianInterval) and its coverage. */
  lo: number;
  hi: number;
  level: number;
  /**
   * This cell was among those the night's comparison flagged: true or false;
   * null when the night was flagged but the history does not say which cells
   * (a night judged before history version 4).
   */
  regressed: boolean | null;
}

export interface TrendPanel {
  /** "scenario/host/mount/series/metric", as github-action-benchmark names it; what --cell matches. */
  cell: string;
  scenario: string;
  host: string;
  profile: string;
  mount: string;
  series: string;
  metric: string;
  unit: string;
  better: 'higher' | 'lower';
  points: TrendPoint[];
  /** Per night (index), what changed in this panel's host's recorded environment since the night before. */
  envChanges: { night: number; changes: string[] }[];
}

export interface TrendLab {
  lab: string;
  nights: TrendNight[];
  panels: TrendPanel[];
}

export interface TrendModel {
  /** Where the nights came from (the history file). */
  source: string;
  labs: TrendLab[];
}

/** Every change a panel shows at a night: the lab's own, then its host's environment. */
export function changesAt(lab: TrendLab, panel: TrendPanel, night: number): string[] {
  return [...(lab.nights[night]?.changes ?? []), ...(panel.envChanges.find((c) => c.night === night)?.changes ?? [])];
}

const CSV_COLUMNS = [
  'lab',
  'cell',
  'scenario',
  'host',
  'profile',
  'mount',
  'series',
  'metric',
  'unit',
  'better',
  'run',
  'started_at',
  'n',
  'median',
  'lo',
  'hi',
  'level',
  'flagged',
  'regressed',
  'accepted_at',
  'complete',
  'changes',
] as const;

/** trends.csv: one row per panel and night it has values; every text cell through csvCell. */
export function trendCsv(model: TrendModel): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const lab of model.labs)
    for (const panel of lab.panels)
      for (const p of panel.points) {
        const night = lab.nights[p.night] as TrendNight;
        const row: Record<(typeof CSV_COLUMNS)[number], unknown> = {
          lab: lab.lab,
          cell: panel.cell,
          scenario: panel.scenario,
          host: panel.host,
          profile: panel.profile,
          mount: panel.mount,
          series: panel.series,
          metric: panel.metric,
          unit: panel.unit,
          better: panel.better,
          run: night.run,
          started_at: night.startedAt ?? '',
          n: p.n,
          median: p.median,
          lo: p.lo,
          hi: p.hi,
          level: Number(p.level.toFixed(4)),
          flagged: night.flagged ? 1 : 0,
          regressed: p.regressed === null ? '' : p.regressed ? 1 : 0,
          accepted_at: night.acceptedAt ?? '',
          complete: night.complete ? 1 : 0,
          changes: changesAt(lab, panel, p.night).join('; '),
        };
        lines.push(CSV_COLUMNS.map((c) => csvCell(row[c])).join(','));
      }
  return `${lines.join('\n')}\n`;
}

/** trends.json: the model itself (no Infinity or NaN in it: a number JSON cannot hold is null). */
export function trendJson(model: TrendModel): string {
  const finite = (_key: string, value: unknown) =>
    typeof value === 'number' && !Number.isFinite(value) ? null : value;
  return `${JSON.stringify(model, finite, 2)}\n`;
}
