import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { NAME_RE } from '../catalog.js';
import { UserError } from '../errors.js';
import { resultsRoot } from '../paths.js';
import { makePrivateDir } from '../util/owned-dir.js';

function stamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

const RUN_ID_PARTS = /^(\d{8}-\d{6})-(.+)-([0-9a-f]{4})$/;

/** `<yyyymmdd>-<hhmmss>-<lab name>-<4 hex>`, as createRunDir makes them; the lab name by the definitions' rule. */
export function isRunId(id: string): boolean {
  const parts = RUN_ID_PARTS.exec(id);
  return !!parts?.[2] && NAME_RE.test(parts[2]);
}

/**
 * The results folder is private (0700): runs hold files pulled from hosts
 * layerlab does not trust, and environment facts of the operator's machines.
 * A clone makes `results/` 0755 (git tracks its README, not its mode), so an
 * existing folder of ours is tightened; one another user owns is left alone
 * (each run folder inside is private anyway).
 */
function makeResultsRootPrivate(root: string): void {
  makePrivateDir(root);
  const stat = statSync(root);
  const ours = typeof process.getuid !== 'function' || stat.uid === process.getuid();
  if (ours && (stat.mode & 0o077) !== 0) chmodSync(root, stat.mode & 0o700);
}

/**
 * A new, never-before-used run folder, private (0700): mkdir without
 * `recursive` fails if it exists.
 */
export function createRunDir(root: string, lab: string, now = new Date()): { runId: string; dir: string } {
  makeResultsRootPrivate(root);
  for (;;) {
    const runId = `${stamp(now)}-${lab}-${randomBytes(2).toString('hex')}`;
    const dir = join(root, runId);
    try {
      mkdirSync(dir, { mode: 0o700 });
      return { runId, dir };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

export const runFiles = (dir: string) => ({
  manifest: join(dir, 'manifest.json'),
  /** Held while the folder is written (`run`, `run --resume`): one writer per journal. */
  lock: join(dir, 'run.lock'),
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
