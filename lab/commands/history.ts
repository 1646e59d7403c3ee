import { History } from '../history/history.js';
import { resultsRoot } from '../paths.js';
import { checkCliName } from './context.js';

/** `layerlab history`: the runs recorded in results/history.sqlite, one line each. */
export function historyCommand(opts: { lab?: string }): void {
  if (opts.lab !== undefined) checkCliName('--lab', opts.lab);
  const history = History.forResults(resultsRoot());
  try {
    const runs = history.runs(opts.lab);
    process.stdout.write('run | lab | git | trials done/failed | samples | wall | ended by\n');
    for (const r of runs) {
      const wall = r.wall_seconds === null ? '?' : `${Math.round(r.wall_seconds)} s`;
      process.stdout.write(
        `${r.run_id} | ${r.lab} | ${r.git_revision ?? '?'} | ${r.done ?? '?'}/${r.failed ?? '?'} | ${r.samples} | ${wall} | ${r.stopped_by ?? '?'}\n`,
      );
    }
    if (!runs.length) process.stdout.write('(no runs recorded yet)\n');
  } finally {
    history.close();
  }
}
