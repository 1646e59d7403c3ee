import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { UserError } from '../errors.js';
import { History, type HistoryRun } from '../history/history.js';
import { resultsRoot } from '../paths.js';
import { visible } from '../util/safe-text.js';
import { checkCliName, checkRunRef } from './context.js';

/** What a nightly comparison said of a run, and whether a person accepted it. */
function verdict(r: HistoryRun): string {
  const judged = r.regressed === 1 ? 'REGRESSED' : r.regressed === 0 ? 'ok' : '-';
  return r.accepted_at ? `${judged}, accepted ${r.accepted_at}` : judged;
}

/** `layerlab history`: the runs recorded in results/history.sqlite, one line each. */
export function historyCommand(opts: { lab?: string }): void {
  if (opts.lab !== undefined) checkCliName('--lab', opts.lab);
  const history = History.forResults(resultsRoot());
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
export function historyAcceptCommand(ref: string, now: Date = new Date()): string {
  checkRunRef('history accept <run>', ref);
  const path = join(resultsRoot(), 'history.sqlite');
  if (!existsSync(path)) throw new UserError(`history accept: no history at ${path}`);
  const history = new History(path);
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
