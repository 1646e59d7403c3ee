import { upRunDown } from '../phases/lifecycle.js';
import { type LabCliOptions, requireLab } from './context.js';
import { installInterruptHandler } from './interrupt.js';

/** `layerlab all`: up, run, report, and down (always, unless --keep); exit 1 when anything failed. */
export async function allCommand(opts: LabCliOptions & { keep?: boolean; cold?: boolean }): Promise<void> {
  const loaded = await requireLab(opts);
  const controller = installInterruptHandler(loaded);
  const result = await upRunDown(loaded, { keep: opts.keep, cold: opts.cold, signal: controller.signal });
  if (result.reportPath) process.stdout.write(`report: ${result.reportPath}\n`);
  if (result.failed) process.exitCode = 1;
}
