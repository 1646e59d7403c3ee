import { existsSync } from 'node:fs';
import { parseTrialOutput } from '../collect/trial-output.js';
import { RunRecord } from '../record/record.js';
import type { Sample } from '../record/samples.js';
import { isScenarioName } from '../scenarios/index.js';

/** Trials whose raw output the current parser refuses (even if the journal said done), by trial id. */
export type ReparseFailures = Map<string, { host: string; reason: string }>;

export interface Collected {
  samples: Sample[];
  reparseFailures: ReparseFailures;
}

/**
 * Re-parses a run's raw trial folders into samples (an improved parser
 * re-reads old runs) and rewrites samples.ndjson from them (samples.csv is
 * an exporter's, written with the report).
 * Raw files are never touched. A trial of a scenario this version does not
 * know (renamed or removed since the run) has no parser here: its samples
 * stay as the run recorded them.
 */
export async function collect(runDir: string): Promise<Collected> {
  const record = RunRecord.open(runDir);
  const samples: Sample[] = [];
  const reparseFailures: ReparseFailures = new Map();
  const recorded = record.plan.trials.some((t) => !isScenarioName(t.scenario)) ? record.recordedSamples() : [];
  for (const trial of record.plan.trials) {
    const { scenario } = trial;
    if (!isScenarioName(scenario)) {
      samples.push(...recorded.filter((s) => s.trial === trial.id));
      continue;
    }
    const dir = record.trialDir(trial.id);
    if (!existsSync(dir)) continue;
    const outcome = parseTrialOutput(dir, { ...trial, scenario }, record.runId);
    samples.push(...outcome.samples);
    if (!outcome.ok) reparseFailures.set(trial.id, { host: trial.host, reason: outcome.failures.join('; ') });
  }
  await record.rewriteSamples(samples);
  return { samples, reparseFailures };
}
