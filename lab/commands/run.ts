import { collectAnalyzeReport } from '../phases/lifecycle.js';
import { resumeRun, startRun } from '../phases/run.js';
import { type LabCliOptions, checkRunRef, requireLab } from './context.js';
import { installInterruptHandler } from './interrupt.js';

/**
 * `layerlab run [--resume <run>]`: the run phase, then the run's report.
 * Exit 1 when a trial failed or the run was interrupted (the report is
 * written either way: it says what is missing).
 */
export async function runCommand(opts: LabCliOptions & { resume?: string }): Promise<void> {
  if (opts.resume !== undefined) checkRunRef('--resume', opts.resume);
  const loaded = await requireLab(opts);
  const { lab, file, targetOptions } = loaded;
  const controller = installInterruptHandler(loaded, 'keep the lab');
  const result = opts.resume
    ? await resumeRun(lab, opts.resume, controller.signal, targetOptions)
    : await startRun(lab, file, controller.signal, targetOptions);
  process.stdout.write(`${await collectAnalyzeReport(result.dir)}\n`);
  if (result.summary.failed || result.summary.stoppedBy === 'interrupted') process.exitCode = 1;
}
