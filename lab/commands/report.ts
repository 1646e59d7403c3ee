import { collectAnalyzeReport } from '../phases/lifecycle.js';
import { resolveRunDir } from '../record/layout.js';
import { checkRunRef } from './context.js';

/**
 * `layerlab report [run]`: rebuilds a run's derived files from its raw trial
 * folders (collect, analyze, report, history) and prints report.md's path.
 */
export async function reportCommand(ref?: string): Promise<void> {
  if (ref !== undefined) checkRunRef('report <run>', ref);
  process.stdout.write(`${await collectAnalyzeReport(resolveRunDir(ref))}\n`);
}
