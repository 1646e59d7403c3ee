import { type ScenarioAnalysis, analyzeRun } from '../analyze/analysis.js';
import { type LoadedRun, loadRun } from '../record/load.js';
import type { ReparseFailures } from './collect.js';

export interface Analyzed {
  run: LoadedRun;
  analysis: ScenarioAnalysis[];
}

/** Loads the run as collected (trials the parser refused marked failed) and analyzes it: comparisons, verdicts. */
export function analyze(runDir: string, reparseFailures?: ReparseFailures): Analyzed {
  const run = loadRun(runDir, reparseFailures);
  return { run, analysis: analyzeRun(run) };
}
