import { join } from 'node:path';
import { writeFileAtomic } from '../util/files.js';

/**
 * A run's derived files: rebuilt from its raw trial folders whenever it is
 * reported, each replaced atomically. The raw files are never touched here.
 */

/** One derived file of the run folder (report.md, samples.csv, ...), replaced atomically; returns its path. */
export async function writeDerivedFile(runDir: string, fileName: string, content: string | Buffer): Promise<string> {
  const path = join(runDir, fileName);
  await writeFileAtomic(path, content);
  return path;
}

/** selftest.md of an A/A run; returns its path. */
export async function writeSelftestReport(runDir: string, text: string): Promise<string> {
  const path = join(runDir, 'selftest.md');
  await writeFileAtomic(path, text);
  return path;
}
