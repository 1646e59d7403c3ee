import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

function stamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

/** A new, never-before-used run folder: mkdir without `recursive` fails if it exists. */
export function createRunDir(root: string, lab: string, now = new Date()): { runId: string; dir: string } {
  mkdirSync(root, { recursive: true });
  for (;;) {
    const runId = `${stamp(now)}-${lab}-${randomBytes(2).toString('hex')}`;
    const dir = join(root, runId);
    try {
      mkdirSync(dir);
      return { runId, dir };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

export const runFiles = (dir: string) => ({
  manifest: join(dir, 'manifest.json'),
  plan: join(dir, 'plan.json'),
  journal: join(dir, 'journal.ndjson'),
  samples: join(dir, 'samples.ndjson'),
  csv: join(dir, 'samples.csv'),
  summary: join(dir, 'summary.json'),
  report: join(dir, 'report.md'),
  html: join(dir, 'report.html'),
  hostDir: (host: string) => join(dir, 'hosts', host),
  envDir: (host: string) => join(dir, 'hosts', host, 'env'),
  trialDir: (trial: string) => join(dir, 'trials', trial),
});
