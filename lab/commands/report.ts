import { collectAnalyzeReport } from '../phases/lifecycle.js';
import { resolveRunDir } from '../record/layout.js';
import { DEFAULT_EXPORTERS, EXPORTERS, exportersNamed } from '../report/exporters.js';
import { checkRunRef } from './context.js';

/**
 * `layerlab report [run] [--format a,b]`: rebuilds a run's derived files from
 * its raw trial folders (collect, analyze, report, history) and prints the
 * path of the first format's file (report.md by default).
 */
export async function reportCommand(ref: string | undefined, opts: { format?: string } = {}): Promise<void> {
  if (ref !== undefined) checkRunRef('report <run>', ref);
  const exporters = opts.format === undefined ? undefined : exportersNamed(opts.format);
  process.stdout.write(`${await collectAnalyzeReport(resolveRunDir(ref), exporters)}\n`);
}

/** `--format`'s help: every exporter's name, and the default set. */
export const REPORT_FORMAT_HELP = `comma-separated formats: ${EXPORTERS.map((e) => e.name).join(', ')} (default: ${DEFAULT_EXPORTERS.map((e) => e.name).join(',')})`;
