import { scenarioMounts } from '../plan/plan.js';
import { Journal } from '../record/journal.js';
import { type LoadedRun, recordedLab } from '../record/load.js';
import type { Sample } from '../record/samples.js';
import { SCENARIO_NAMES, type ScenarioName, getScenario, isScenarioName } from '../scenarios/index.js';
import { compareAll, controlFamily } from './comparison-rows.js';
import { controlOrderEffects, testOrderEffects } from './order-effects.js';
import { type ScenarioTime, accountTrialTime } from './trial-time.js';
import type { ScenarioAnalysis } from './types.js';

export type { ScenarioAnalysis } from './types.js';

/**
 * The analysis of a run, done once: samples grouped by scenario and every
 * comparison with its interval, verdicts controlled across the report's
 * family; and per compared cell, whether its values drifted with their
 * trials' position in the run. Every report format renders this.
 */
export function analyzeRun(run: LoadedRun): ScenarioAnalysis[] {
  const byScenario = new Map<string, Sample[]>();
  for (const s of run.samples) {
    const name = s.scenario;
    const list = byScenario.get(name);
    if (list) list.push(s);
    else byScenario.set(name, [s]);
  }
  const lab = recordedLab(run);
  const hosts = lab.hosts.map((h) => h.name);
  const positions = Journal.runOrder(run.journal);
  // Scenarios in their catalog order, whatever order the trials ran in; those this version does not know last.
  const rank = (name: string) => (isScenarioName(name) ? SCENARIO_NAMES.indexOf(name) : SCENARIO_NAMES.length);
  const ordered = [...byScenario].sort(([a], [b]) => rank(a) - rank(b));
  const tested = ordered.map(([name, samples]) => {
    // An unknown scenario's metrics are unknown too (which side is better): it is not compared.
    const scenario = getScenario(name);
    const compared = scenario?.metrics.filter((m) => m.compare) ?? [];
    return {
      name,
      samples,
      comparisons: scenario
        ? compareAll(samples, compared, {
            hosts,
            mounts: scenarioMounts(name as ScenarioName, lab),
            series: scenario.compareSeries,
          })
        : [],
      orderEffects: testOrderEffects(samples, compared, positions),
    };
  });
  // One family for the whole report: every comparison it shows counts (series rows too).
  const decided = controlFamily(tested.flatMap((t) => t.comparisons.map((row) => ({ ...row, scenario: t.name }))));
  // The drift checks are a family of their own (they must not change the comparisons' q), controlled the same way.
  const drift = controlOrderEffects(
    tested.flatMap((t) => t.orderEffects.map((cell) => ({ ...cell, scenario: t.name }))),
  );
  return tested.map((t) => ({
    ...t,
    comparisons: decided.filter((row) => row.scenario === t.name).map(({ scenario: _, ...row }) => row),
    orderEffects: drift.filter((cell) => cell.scenario === t.name).map(({ scenario: _, ...cell }) => cell),
  }));
}

/**
 * Where each scenario's trial time went (accountTrialTime), scenarios in
 * catalog order. The part of the work the tool times is what the scenario's
 * recorded parameters fix (timedSeconds), for the scenarios this version
 * knows with parameters it still reads.
 */
export function accountRunTime(run: LoadedRun): ScenarioTime[] {
  const lab = recordedLab(run);
  const timedOf = (name: string): number | undefined => {
    const scenario = getScenario(name);
    const recorded = lab.scenarios[name];
    if (!scenario?.timedSeconds || recorded === undefined) return undefined;
    const params = scenario.params.safeParse(recorded);
    return params.success ? scenario.timedSeconds(params.data) : undefined;
  };
  const rank = (name: string) => (isScenarioName(name) ? SCENARIO_NAMES.indexOf(name) : SCENARIO_NAMES.length);
  return accountTrialTime(run.times ?? [], timedOf).sort((a, b) => rank(a.scenario) - rank(b.scenario));
}
