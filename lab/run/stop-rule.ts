import { compareAll } from '../analyze/comparison-rows.js';
import type { LabDefinition } from '../definition/schema.js';
import { scenarioMounts, scenarioRepetitionCap } from '../plan/plan.js';
import type { Sample } from '../record/samples.js';
import type { StopReason } from '../record/schemas.js';
import { SCENARIOS, type ScenarioName } from '../scenarios/index.js';

export type { StopReason } from '../record/schemas.js';

/**
 * The widest 95% interval (hi − lo of the typical ratio) over every pair the
 * report compares; Infinity while any pair has too few runs to bound it
 * (fewer than 4 per side) or no ratio. Scenarios that compare nothing
 * (permissions' yes/no) and those past their own repetition cap, which more
 * repetitions would not narrow, do not hold the run.
 */
export function widestInterval(lab: LabDefinition, samples: readonly Sample[], done = 0): number {
  let widest = 0;
  const hosts = lab.hosts.map((h) => h.name);
  for (const name of Object.keys(lab.scenarios) as ScenarioName[]) {
    if (lab.scenarios[name] === undefined || scenarioRepetitionCap(name, lab) <= done) continue;
    const metrics = SCENARIOS[name].metrics.filter((m) => m.compare);
    if (!metrics.length) continue;
    const rows = compareAll(
      samples.filter((s) => s.scenario === name),
      metrics,
      { hosts, mounts: scenarioMounts(name, lab), series: SCENARIOS[name].compareSeries },
    );
    if (!rows.length) return Number.POSITIVE_INFINITY;
    for (const { result } of rows) {
      if (result.lo === undefined || result.hi === undefined) return Number.POSITIVE_INFINITY;
      widest = Math.max(widest, result.hi - result.lo);
    }
  }
  return widest;
}

/**
 * After repetition `done`: stop, or go on? Fixed counts run to the end; a
 * stop rule ends at max, at the time budget (when one more repetition would
 * not fit), or once every interval is narrower than the target.
 */
export function stopAfter(
  lab: LabDefinition,
  done: number,
  elapsedMs: number,
  samples: readonly Sample[],
): { stop: boolean; reason?: StopReason; widest?: number } {
  const r = lab.repetitions;
  if (done >= r.max)
    return { stop: true, reason: r.min === r.max && !r.targetCiWidth ? 'fixed-count' : 'max-repetitions' };
  if (done < r.min) return { stop: false };
  if (r.budgetMinutes !== undefined && elapsedMs + elapsedMs / done > r.budgetMinutes * 60_000) {
    return { stop: true, reason: 'budget' };
  }
  if (r.targetCiWidth !== undefined) {
    const widest = widestInterval(lab, samples, done);
    return widest < r.targetCiWidth ? { stop: true, reason: 'target-ci-width', widest } : { stop: false, widest };
  }
  return { stop: false };
}
