import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseTrialOutput } from '../collect/trial-output.js';
import type { Plan } from '../plan/plan.js';
import { writeSamplesCsv } from '../record/derived.js';
import { runFiles } from '../record/layout.js';
import { type Sample, writeSamples } from '../record/samples.js';
import { samplesCsv } from '../report/csv.js';

/** Trials whose raw output the current parser refuses (even if the journal said done), by trial id. */
export type ReparseFailures = Map<string, { host: string; reason: string }>;

export interface Collected {
  samples: Sample[];
  reparseFailures: ReparseFailures;
}

/**
 * Re-parses a run's raw trial folders into samples (an improved parser
 * re-reads old runs) and rewrites samples.ndjson and samples.csv from them.
 * Raw files are never touched.
 */
export async function collect(runDir: string): Promise<Collected> {
  const files = runFiles(runDir);
  const runId = basename(runDir);
  const plan = JSON.parse(readFileSync(files.plan, 'utf8')) as Plan;
  const samples: Sample[] = [];
  const reparseFailures: ReparseFailures = new Map();
  for (const trial of plan.trials) {
    const dir = files.trialDir(trial.id);
    if (!existsSync(dir)) continue;
    const outcome = parseTrialOutput(dir, trial, runId);
    samples.push(...outcome.samples);
    if (!outcome.ok) reparseFailures.set(trial.id, { host: trial.host, reason: outcome.failures.join('; ') });
  }
  await writeSamples(files.samples, samples);
  await writeSamplesCsv(runDir, samplesCsv(samples));
  return { samples, reparseFailures };
}
