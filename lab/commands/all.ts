import { LabError, errorMessage } from '../errors.js';
import { say } from '../run/progress.js';
import { type LoadedLab, downHint } from './context.js';
import { report } from './report.js';
import { run } from './run.js';
import { driverFor, up } from './up.js';

/** Removes what the lab's target created; throws when a host could not be cleaned. */
export async function downLab(loaded: LoadedLab): Promise<void> {
  const { lab, targetOptions } = loaded;
  say(`tearing down lab ${lab.name} (${lab.target.kind})`);
  const reports = await driverFor(lab).down(lab, targetOptions, say);
  for (const r of reports) say(`${r.host}: ${r.outcome}`);
  if (reports.some((r) => r.outcome.startsWith('NOT'))) throw new LabError(`lab ${lab.name}: teardown incomplete`);
  say(`lab ${lab.name} is down`);
}

export interface AllResult {
  runDir?: string;
  reportPath?: string;
  /** Failed trials, an interrupted run, or an incomplete teardown. */
  failed: boolean;
}

/** up, run, report, and down in a `finally` (unless keep): a lab never outlives a failure. */
export async function upRunDown(loaded: LoadedLab, opts: { keep?: boolean; signal: AbortSignal }): Promise<AllResult> {
  const { lab, file, targetOptions } = loaded;
  const result: AllResult = { failed: false };
  try {
    await up(lab, file, targetOptions, !opts.keep);
    if (opts.signal.aborted) throw new LabError('interrupted before the run started');
    const ran = await run(lab, file, opts.signal, targetOptions);
    result.runDir = ran.dir;
    result.reportPath = await report(ran.dir);
    result.failed = ran.summary.failed > 0 || ran.summary.stoppedBy === 'interrupted';
  } finally {
    if (!opts.keep) {
      try {
        await downLab(loaded);
      } catch (err) {
        say(`teardown failed: ${errorMessage(err)}; run \`${downHint(loaded)}\``);
        result.failed = true;
      }
    } else say(`lab ${lab.name} left up (--keep); \`${downHint(loaded)}\` removes it`);
  }
  return result;
}
