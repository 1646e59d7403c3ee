import { dirname } from 'node:path';
import { History } from '../history/history.js';
import type { LoadedRun } from '../record/load.js';

/** Replaces the run's rows in results/history.sqlite (beside the run folder) with what it holds now. */
export async function recordHistory(run: LoadedRun): Promise<void> {
  const history = await History.forResults(dirname(run.dir));
  try {
    history.record(run);
  } finally {
    history.close();
  }
}
