import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UserError } from '../errors.js';
import { resultsRoot } from '../paths.js';
import { loadRun } from '../report/load-run.js';
import { renderMarkdown } from '../report/markdown.js';
import { runFiles } from '../run/run-dir.js';
import { writeFileAtomic } from '../util/files.js';

/** A run id, a run folder path, or (none given) the newest run. */
export function resolveRunDir(ref: string | undefined): string {
  if (ref && existsSync(join(ref, 'manifest.json'))) return resolve(ref);
  const root = resultsRoot();
  if (ref) {
    const dir = join(root, ref);
    if (existsSync(join(dir, 'manifest.json'))) return dir;
    throw new UserError(`no run ${ref} in ${root}`);
  }
  const runs = existsSync(root)
    ? readdirSync(root)
        .filter((d) => existsSync(join(root, d, 'manifest.json')))
        .sort()
    : [];
  const last = runs[runs.length - 1];
  if (!last) throw new UserError(`no runs in ${root}; run \`layerlab run\` or \`layerlab all\` first`);
  return join(root, last);
}

/** (Re)writes report.md of a run from its collected files; returns its path. */
export async function report(runDir: string): Promise<string> {
  const run = loadRun(runDir);
  const path = runFiles(runDir).report;
  await writeFileAtomic(path, renderMarkdown(run));
  return path;
}
