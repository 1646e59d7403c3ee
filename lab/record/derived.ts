import { join } from 'node:path';
import { writeFileAtomic } from '../util/files.js';
import { runFiles } from './layout.js';

/**
 * A run's derived files: rebuilt from its raw trial folders whenever it is
 * reported, each replaced atomically. The raw files are never touched here.
 */

/** samples.csv: the samples as a spreadsheet reads them. */
export async function writeSamplesCsv(runDir: string, csv: string): Promise<void> {
  await writeFileAtomic(runFiles(runDir).csv, csv);
}

/** report.md, then report.html; returns report.md's path. */
export async function writeReportFiles(runDir: string, report: { markdown: string; html: string }): Promise<string> {
  const files = runFiles(runDir);
  await writeFileAtomic(files.report, report.markdown);
  await writeFileAtomic(files.html, report.html);
  return files.report;
}

/** selftest.md of an A/A run; returns its path. */
export async function writeSelftestReport(runDir: string, text: string): Promise<string> {
  const path = join(runDir, 'selftest.md');
  await writeFileAtomic(path, text);
  return path;
}
