import { groupCells, seriesOf } from '../analyze/comparison-rows.js';
import { describe, medianInterval } from '../analyze/stats.js';
import { UserError } from '../errors.js';
import type { TrendLab, TrendModel, TrendNight, TrendPanel } from '../report/trend-model.js';
import { scenarioMetric } from '../scenarios/index.js';
import { cellName } from './benchmark-export.js';
import { keyChanges, parseKey } from './comparison-key.js';
import { type History, type HistoryRun, canonical, hostSetKey, isGood } from './history.js';

export interface TrendOptions {
  /** Only this lab's nights (default: every lab in the history). */
  lab?: string;
  /** Only cells whose name (scenario/host/mount/series/metric) contains one of these. */
  cells?: readonly string[];
  /** Only each lab's last N nights. */
  last?: number;
}

/** A night's x-axis label: its start (UTC, to the minute), else its run id. */
function nightLabel(r: HistoryRun): string {
  const t = r.started_at ? new Date(r.started_at) : undefined;
  return t && !Number.isNaN(t.getTime()) ? `${t.toISOString().slice(0, 16).replace('T', ' ')}Z` : r.run_id;
}

/** What changed lab-wide between two consecutive nights (unknown on either side is not a change). */
function labChanges(before: HistoryRun, now: HistoryRun): string[] {
  const changes: string[] = [];
  if (before.target !== null && now.target !== null && before.target !== now.target)
    changes.push(`target ${before.target} → ${now.target}`);
  if (before.hosts !== null && now.hosts !== null && hostSetKey(before.hosts) !== hostSetKey(now.hosts))
    changes.push(`hosts ${hostSetKey(before.hosts)} → ${hostSetKey(now.hosts)}`);
  if (before.scenarios !== null && now.scenarios !== null) {
    const [a, b] = [canonical(JSON.parse(before.scenarios)), canonical(JSON.parse(now.scenarios))];
    if (a !== b) changes.push(`scenario parameters ${a} → ${b}`);
  }
  return changes;
}

function labTrend(history: History, lab: string, runs: readonly HistoryRun[], opts: TrendOptions): TrendLab {
  const nights: TrendNight[] = runs.map((r, i) => {
    const before = runs[i - 1];
    return {
      run: r.run_id,
      label: nightLabel(r),
      startedAt: r.started_at,
      flagged: r.regressed === 1,
      acceptedAt: r.accepted_at,
      complete: isGood(r),
      changes: before ? labChanges(before, r) : [],
    };
  });
  const panels = new Map<string, TrendPanel>();
  runs.forEach((r, night) => {
    const before = runs[night - 1];
    const flaggedCells = r.regressed_cells === null ? null : new Set(JSON.parse(r.regressed_cells) as string[]);
    const regressed = (cell: string) => (r.regressed !== 1 ? false : flaggedCells ? flaggedCells.has(cell) : null);
    const [keyBefore, keyNow] = [parseKey(before?.env_key ?? null), parseKey(r.env_key)];
    for (const { sample, values } of groupCells(history.samples(r.run_id)).values()) {
      // The headline metrics, as `compare` judges them; a scenario this layerlab does not know has none.
      const metric = scenarioMetric(sample.scenario, sample.metric);
      if (!metric?.compare) continue;
      const series = seriesOf(sample);
      const cell = cellName({ ...sample, series });
      if (opts.cells?.length && !opts.cells.some((c) => cell.includes(c))) continue;
      let panel = panels.get(cell);
      if (!panel) {
        panel = {
          cell,
          scenario: sample.scenario,
          host: sample.host,
          profile: sample.profile,
          mount: sample.mount,
          series,
          metric: metric.name,
          unit: metric.unit,
          better: metric.better,
          points: [],
          envChanges: [],
        };
        panels.set(cell, panel);
      }
      panel.points.push({
        night,
        n: values.length,
        median: describe(values).median,
        ...medianInterval(values),
        regressed: regressed(cell),
      });
      const host = sample.host;
      if (before && keyBefore[host] && keyNow[host]) {
        const changes = keyChanges({ [host]: keyBefore[host] }, { [host]: keyNow[host] });
        if (changes.length && !panel.envChanges.some((c) => c.night === night))
          panel.envChanges.push({ night, changes });
      }
    }
  });
  const byCell = (a: TrendPanel, b: TrendPanel) => (a.cell < b.cell ? -1 : a.cell > b.cell ? 1 : 0);
  return { lab, nights, panels: [...panels.values()].sort(byCell) };
}

/**
 * The trend model of the history: per lab (one, or every lab), its nights
 * with samples in run order (the last N with `last`), each night's flag,
 * acceptance and what changed since the night before (lab-wide, and per
 * host the recorded environment: kernel, Docker, image, ...), and one panel
 * per headline cell. Nothing to draw is bad input, said with what to do.
 */
export function buildTrends(history: History, opts: TrendOptions = {}): TrendModel {
  const all = history.runs(opts.lab).filter((r) => r.samples > 0);
  if (!all.length) {
    throw new UserError(
      opts.lab === undefined
        ? `no runs with samples in ${history.path}: nothing to plot (\`layerlab report <run>\` records a run there)`
        : `no runs of lab ${opts.lab} with samples in ${history.path}: nothing to plot (\`layerlab history\` lists the labs it has)`,
    );
  }
  const labs = [...new Set(all.map((r) => r.lab))].sort();
  const model: TrendModel = {
    source: history.path,
    labs: labs.map((lab) => {
      const runs = all.filter((r) => r.lab === lab);
      return labTrend(history, lab, opts.last === undefined ? runs : runs.slice(-opts.last), opts);
    }),
  };
  model.labs = model.labs.filter((l) => l.panels.length > 0);
  if (!model.labs.length) {
    const where = opts.lab === undefined ? 'any lab' : `lab ${opts.lab}`;
    if (!opts.cells?.length)
      throw new UserError(
        `no headline metric of ${where} in ${history.path}: nothing to plot (its scenarios compare none)`,
      );
    throw new UserError(
      `no cell of ${where} in ${history.path} matches --cell ${opts.cells.map((c) => JSON.stringify(c)).join(', ')}: nothing to plot (cells are named scenario/host/mount/series/metric, e.g. fio/xfs/volume/randread/read/bw)`,
    );
  }
  return model;
}
