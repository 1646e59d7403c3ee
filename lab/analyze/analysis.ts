import type { LoadedRun } from '../report/load-run.js';
import type { Sample } from '../run/trial.js';
import { SCENARIOS, type ScenarioName } from '../scenarios/index.js';
import { type ComparisonRow, compareAll } from './comparisons.js';

export interface ScenarioAnalysis {
  name: ScenarioName;
  samples: Sample[];
  comparisons: ComparisonRow[];
}

/**
 * The analysis of a run, done once: samples grouped by scenario and every
 * comparison with its bootstrap interval. Every report format renders this.
 */
export function analyzeRun(run: LoadedRun): ScenarioAnalysis[] {
  const byScenario = new Map<ScenarioName, Sample[]>();
  for (const s of run.samples) {
    const name = s.scenario as ScenarioName;
    const list = byScenario.get(name);
    if (list) list.push(s);
    else byScenario.set(name, [s]);
  }
  const lab = run.manifest.lab as { hosts?: { name: string }[]; mounts?: string[] };
  const order = { hosts: (lab.hosts ?? []).map((h) => h.name), mounts: lab.mounts ?? [] };
  return [...byScenario].map(([name, samples]) => ({
    name,
    samples,
    comparisons: compareAll(
      samples,
      (SCENARIOS[name]?.metrics ?? []).filter((m) => m.compare),
      order,
    ),
  }));
}
