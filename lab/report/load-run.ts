import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LabError } from '../errors.js';
import { Journal, type JournalEntry } from '../run/journal.js';
import { runFiles } from '../run/run-dir.js';
import type { RunSummary } from '../run/runner.js';
import type { Sample } from '../run/trial.js';

export interface HostEnvSummary {
  [key: string]: string;
}

export interface LoadedRun {
  dir: string;
  manifest: Record<string, unknown> & { runId: string; lab: { name: string } };
  samples: Sample[];
  journal: JournalEntry[];
  summary?: RunSummary;
  env: Map<string, HostEnvSummary>;
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/**
 * Reads a run folder. `reparseFailures` (trial -> reason) marks trials whose
 * raw output the current parser refuses, even if the journal said done.
 */
export function loadRun(
  dir: string,
  reparseFailures: ReadonlyMap<string, { host: string; reason: string }> = new Map(),
): LoadedRun {
  const files = runFiles(dir);
  if (!existsSync(files.manifest)) throw new LabError(`${dir} is not a run folder (no manifest.json)`);
  const samples = existsSync(files.samples)
    ? readFileSync(files.samples, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as Sample)
    : [];
  const env = new Map<string, HostEnvSummary>();
  const hostsDir = join(dir, 'hosts');
  if (existsSync(hostsDir)) {
    for (const host of readdirSync(hostsDir)) {
      const path = join(files.envDir(host), 'summary.json');
      if (existsSync(path)) env.set(host, readJson<HostEnvSummary>(path));
    }
  }
  return {
    dir,
    manifest: readJson(files.manifest),
    samples,
    journal: [
      ...Journal.read(files.journal),
      ...[...reparseFailures].map(([trial, { host, reason }]) => ({
        at: new Date().toISOString(),
        trial,
        host,
        state: 'failed' as const,
        reason: `re-parse: ${reason}`,
      })),
    ],
    summary: existsSync(files.summary) ? readJson<RunSummary>(files.summary) : undefined,
    env,
  };
}
