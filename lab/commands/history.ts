import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { UserError } from '../errors.js';
import { History, type HistoryRun } from '../history/history.js';
import { buildTrends } from '../history/trends.js';
import { resultsRoot } from '../paths.js';
import { renderTrendHtml } from '../report/trend-html.js';
import { trendCsv, trendJson } from '../report/trend-model.js';
import { visible } from '../util/safe-text.js';
import { checkCliName, checkRunRef } from './context.js';

/** What a nightly comparison said of a run, and whether a person accepted it. */
function verdict(r: HistoryRun): string {
  const judged = r.regressed === 1 ? 'REGRESSED' : r.regressed === 0 ? 'ok' : '-';
  return r.accepted_at ? `${judged}, accepted ${r.accepted_at}` : judged;
}

/** `layerlab history`: the runs recorded in results/history.sqlite, one line each. */
export async function historyCommand(opts: { lab?: string }): Promise<void> {
  if (opts.lab !== undefined) checkCliName('--lab', opts.lab);
  const history = await History.forResults(resultsRoot());
  try {
    const runs = history.runs(opts.lab);
    process.stdout.write('run | lab | git | trials done/failed | samples | wall | ended by | nightly verdict\n');
    for (const r of runs) {
      const wall = r.wall_seconds === null ? '?' : `${Math.round(r.wall_seconds)} s`;
      // The history can come from a shared bucket: its text is shown, never run by the terminal.
      const fields = [
        r.run_id,
        r.lab,
        r.git_revision ?? '?',
        `${r.done ?? '?'}/${r.failed ?? '?'}`,
        String(r.samples),
        wall,
        r.stopped_by ?? '?',
        verdict(r),
      ];
      process.stdout.write(`${fields.map(visible).join(' | ')}\n`);
    }
    if (!runs.length) process.stdout.write('(no runs recorded yet)\n');
  } finally {
    history.close();
  }
}

/**
 * `layerlab history accept <run>`: a deliberate change (a new kernel, image
 * or profile setting) becomes the baseline. Later nights' rolling baselines
 * start at this run, so what it changed is no longer flagged.
 */
export async function historyAcceptCommand(ref: string, now: Date = new Date()): Promise<string> {
  checkRunRef('history accept <run>', ref);
  const path = join(resultsRoot(), 'history.sqlite');
  if (!existsSync(path)) throw new UserError(`history accept: no history at ${path}`);
  const history = await History.open(path);
  try {
    const id = basename(ref);
    const run = history.run(id);
    if (!run) throw new UserError(`history accept: run ${id} is not in ${path} (\`layerlab history\` lists them)`);
    history.accept(id, now.toISOString());
    const message = `accepted ${id} as the baseline of lab ${visible(run.lab)}: later nights are compared with it and the runs after it\n`;
    process.stdout.write(message);
    return message;
  } finally {
    history.close();
  }
}

export interface HistoryPlotOptions {
  lab?: string;
  /** Parts of cell names (scenario/host/mount/series/metric); a cell that contains any is drawn. */
  cell?: string[];
  /** Only the last N nights of each lab. */
  last?: string;
  /** Folder for trends.html, trends.csv and trends.json (default: <results>/trends). */
  out?: string;
}

const LAST_RE = /^[1-9][0-9]{0,3}$/;

/**
 * `layerlab history plot`: each headline cell over the nights in
 * results/history.sqlite, as a page of small multiples (trends.html) and the
 * same numbers as trends.csv and trends.json. Bad options are refused
 * (exit 2) before the history is opened; so is a history with nothing to draw.
 * Returns the paths written.
 */
export async function historyPlotCommand(opts: HistoryPlotOptions): Promise<string[]> {
  if (opts.lab !== undefined) checkCliName('--lab', opts.lab);
  for (const c of opts.cell ?? [])
    if (!c.trim()) throw new UserError('--cell: expected part of a cell name, like xfs/volume or randread; got ""');
  if (opts.last !== undefined && !LAST_RE.test(opts.last))
    throw new UserError(`--last: expected a number of nights from 1 to 9999; got ${JSON.stringify(opts.last)}`);
  if (opts.out !== undefined && !opts.out.trim()) throw new UserError('--out: expected a folder; got ""');
  const path = join(resultsRoot(), 'history.sqlite');
  if (!existsSync(path)) {
    throw new UserError(
      `history plot: no history at ${path}: nothing to plot (runs are recorded there when reported; set LAYERLAB_RESULTS to the folder that holds it)`,
    );
  }
  const history = await History.open(path);
  let model: ReturnType<typeof buildTrends>;
  try {
    model = buildTrends(history, {
      lab: opts.lab,
      cells: opts.cell,
      last: opts.last === undefined ? undefined : Number(opts.last),
    });
  } finally {
    history.close();
  }
  const out = resolve(opts.out ?? join(resultsRoot(), 'trends'));
  mkdirSync(out, { recursive: true });
  const files: [string, string][] = [
    ['trends.html', renderTrendHtml(model)],
    ['trends.csv', trendCsv(model)],
    ['trends.json', trendJson(model)],
  ];
  const written = files.map(([name, text]) => {
    const file = join(out, name);
    writeFileSync(file, text);
    return file;
  });
  const panels = model.labs.reduce((sum, l) => sum + l.panels.length, 0);
  const nights = model.labs.reduce((sum, l) => sum + l.nights.length, 0);
  process.stdout.write(`${panels} cell(s) over ${nights} night(s):\n${written.map((f) => `${visible(f)}\n`).join('')}`);
  return written;
}
