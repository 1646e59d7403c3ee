import { scenarioMounts } from '../plan/plan.js';
import { type LoadedRun, recordedLab } from '../record/load.js';
import type { Sample } from '../record/samples.js';
import { SCENARIOS, SCENARIO_NAMES, type ScenarioName } from '../scenarios/index.js';
import { type ComparisonRow, compareAll, controlFamily } from './comparison-rows.js';

export interface ScenarioAnalysis {
  name: ScenarioName;
  samples: Sample[];
  comparisons: ComparisonRow[];
}

/**
 * The analysis of a run, done once: samples grouped by scenario and every
 * comparison with its interval, verdicts controlled across the report's
 * family. Every report format renders this.
 */
export function analyzeRun(run: LoadedRun): ScenarioAnalysis[] {
  const byScenario = new Map<ScenarioName, Sample[]>();
  for (const s of run.samples) {
    const name = s.scenario as ScenarioName;
    const list = byScenario.get(name);
    if (list) list.push(s);
    else byScenario.set(name, [s]);
  }
  const lab = recordedLab(run);
  const hosts = lab.hosts.map((h) => h.name);
  // Scenarios in their catalog order, whatever order the trials ran in.
  const ordered = [...byScenario].sort(([a], [b]) => SCENARIO_NAMES.indexOf(a) - SCENARIO_NAMES.indexOf(b));
  const tested = ordered.map(([name, samples]) => ({
    name,
    samples,
    comparisons: compareAll(
      samples,
      (SCENARIOS[name]?.metrics ?? []).filter((m) => m.compare),
      { hosts, mounts: scenarioMounts(name, lab), series: SCENARIOS[name]?.compareSeries },
    ),
  }));
  // One family for the whole report: every comparison it shows counts (series rows too).
  const decided = controlFamily(tested.flatMap((t) => t.comparisons.map((row) => ({ ...row, scenario: t.name }))));
  return tested.map((t) => ({
    ...t,
    comparisons: decided.filter((row) => row.scenario === t.name).map(({ scenario: _, ...row }) => row),
  }));
}
