import { loadLabDefinition } from '../definition/load.js';
import type { LabDefinition } from '../definition/schema.js';
import { type Plan, makePlan } from '../plan/plan.js';
import { boundScenario } from '../scenarios/index.js';

/**
 * How long a plan's trials take, from each scenario's own estimate: `expected`
 * as calibrated on this project's 2-core TCG machine, `timed` the part the
 * parameters fix (fio's runtime, dbench's duration), which KVM does not
 * shorten. Serial trials add up; parallel hosts run side by side, so the
 * busiest host's sum is the wall. Setup (`up`) and teardown are not in it.
 */
export function planSeconds(lab: LabDefinition, plan: Plan): { expected: number; timed: number } {
  const perHost = new Map<string, { expected: number; timed: number }>();
  for (const trial of plan.trials) {
    const scenario = boundScenario(lab, trial.scenario);
    const sum = perHost.get(trial.host) ?? { expected: 0, timed: 0 };
    sum.expected += scenario.expectedSeconds();
    sum.timed += scenario.timedSeconds();
    perHost.set(trial.host, sum);
  }
  const sums = [...perHost.values()];
  const total = (pick: (s: { expected: number; timed: number }) => number) =>
    plan.mode === 'serial' ? sums.reduce((a, s) => a + pick(s), 0) : Math.max(0, ...sums.map(pick));
  return { expected: total((s) => s.expected), timed: total((s) => s.timed) };
}

/** A duration as people plan with it: hours, minutes, or seconds for a short lab. */
function hours(seconds: number): string {
  if (seconds >= 3600) return `${(seconds / 3600).toFixed(1)} h`;
  if (seconds >= 90) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds)} s`;
}

/** `layerlab validate <file>`: checks a lab definition and plans it; starts nothing. */
export async function validateCommand(file: string): Promise<void> {
  const lab = await loadLabDefinition(file);
  const plan = makePlan(lab);
  const { expected, timed } = planSeconds(lab, plan);
  process.stdout.write(
    `ok: ${file}: lab ${lab.name}, ${lab.hosts.length} host(s), ${plan.trials.length} trials (${plan.mode})\n` +
      `  trials' expected time: ${hours(expected)} on a 2-core machine without KVM (as calibrated); ` +
      `with KVM between ${hours(timed)} (the timed work alone, which no accelerator shortens) and that. ` +
      'Not counted: up (boot, prepare) and down.\n',
  );
}
