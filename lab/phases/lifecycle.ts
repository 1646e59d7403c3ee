import { LabError, errorMessage } from '../errors.js';
import type { Exporter } from '../report/exporter.js';
import type { LoadedLab } from '../targets/driver.js';
import { say } from '../util/log.js';
import { analyze } from './analyze.js';
import { collect } from './collect.js';
import { recordHistory } from './history.js';
import { prepareProvisioned } from './prepare.js';
import { provision } from './provision.js';
import { report } from './report.js';
import { startRun } from './run.js';
import { downHint, teardown } from './teardown.js';

/**
 * Everything a run's folder derives from its raw trial folders, rebuilt in
 * order: collect (samples.ndjson), analyze, report (one file per exporter;
 * default report.md, report.html, samples.csv), and the run's rows in
 * results/history.sqlite. Returns the first report file's path.
 */
export async function collectAnalyzeReport(runDir: string, exporters?: readonly Exporter[]): Promise<string> {
  const { reparseFailures } = await collect(runDir);
  const analyzed = analyze(runDir, reparseFailures);
  const path = await report(analyzed, exporters);
  await recordHistory(analyzed.run);
  return path;
}

export interface AllResult {
  runDir?: string;
  reportPath?: string;
  /** Failed trials, an interrupted run, or an incomplete teardown. */
  failed: boolean;
}

/**
 * provision, prepare, run, collect/analyze/report, and teardown in a
 * `finally` (unless keep): a lab never outlives a failure.
 */
export async function upRunDown(
  loaded: LoadedLab,
  opts: { keep?: boolean; cold?: boolean; signal: AbortSignal },
): Promise<AllResult> {
  const { lab, file, targetOptions } = loaded;
  const result: AllResult = { failed: false };
  try {
    await prepareProvisioned(
      lab,
      await provision(lab, file, targetOptions, { ephemeral: !opts.keep, cold: opts.cold }),
    );
    if (opts.signal.aborted) throw new LabError('interrupted before the run started');
    const ran = await startRun(lab, file, opts.signal, targetOptions);
    result.runDir = ran.dir;
    result.reportPath = await collectAnalyzeReport(ran.dir);
    result.failed = ran.summary.failed > 0 || ran.summary.stoppedBy === 'interrupted';
  } finally {
    if (!opts.keep) {
      try {
        await teardown(lab, targetOptions);
      } catch (err) {
        say(`teardown failed: ${errorMessage(err)}; run \`${downHint(loaded)}\``);
        result.failed = true;
      }
    } else say(`lab ${lab.name} left up (--keep); \`${downHint(loaded)}\` removes it`);
  }
  return result;
}
