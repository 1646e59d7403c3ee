import { runsNeeded, smallestP } from '../analyze/rank-test.js';
import { ALPHA, pValue } from '../analyze/verdict.js';
import { loadLabDefinition } from '../definition/load.js';
import type { LabDefinition } from '../definition/schema.js';
import { type Plan, makePlan } from '../plan/plan.js';
import { boundScenario } from '../scenarios/index.js';
import { costEstimate, hardwareWarnings } from '../targets/aws/hardware.js';
import { PRICES } from '../targets/aws/instance-types.js';

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

/**
 * What a cloud lab costs and whether its hardware measures what it claims:
 * the estimate at list price, and a warning per instance limit the volume
 * exceeds (lab/targets/aws/hardware.ts).
 */
function cloudLines(lab: LabDefinition, trialHours: number, budgeted: boolean): string {
  const warnings = hardwareWarnings(lab).map((w) => `  warning: ${w}\n`);
  const cost = costEstimate(lab);
  const night = budgeted
    ? `the lab's budget of ${hours(trialHours * 3600)}`
    : `${hours(trialHours * 3600)} of timed work`;
  const costLine =
    'unknown' in cost
      ? `  cost: price unknown (${cost.unknown})\n`
      : `  cost: ~$${cost.usdPerHour.toFixed(2)}/h at on-demand list price in ${PRICES.region} as of ${PRICES.asOf} (USD; ${lab.hosts.length} host(s), volumes, public IPv4; ` +
        `no tax, data transfer or support), ~$${(cost.usdPerHour * trialHours).toFixed(2)} per night for ${night} (up and down not counted)` +
        `${cost.notes.length ? `; ${cost.notes.join('; ')}` : ''}\n`;
  return costLine + warnings.join('');
}

/**
 * Why a lab can never claim a difference, or undefined when it can: the
 * analysis tests each pair with the exact rank-sum test at ALPHA (and
 * controls the report's false discovery rate at that level), and at n runs
 * per side that test's smallest two-sided p is 2 / C(2n, n) (3 vs 3: 0.10).
 * A stop rule may reach `max`, so that is the n that counts. A warning, not
 * an error: such a lab still measures, it only cannot claim.
 */
export function repetitionsWarning(lab: LabDefinition): string | undefined {
  const n = lab.repetitions.max;
  const p = smallestP(n, n);
  if (p <= ALPHA) return undefined;
  const needed = runsNeeded(ALPHA);
  const key = lab.repetitions.min === lab.repetitions.max ? 'repetitions' : 'repetitions.max';
  return (
    `${key} ${n} cannot show any difference: at ${n} runs per side the rank test's smallest two-sided p is ` +
    `${pValue(p)}, above the level ${ALPHA}, whatever is measured; ${needed} repetitions can reach ` +
    `${pValue(smallestP(needed, needed))} (more when the report makes many comparisons: docs/lab-definition.md#repetitions)`
  );
}

/** `layerlab validate <file>`: checks a lab definition and plans it; starts nothing. */
export async function validateCommand(file: string, opts: { target?: string } = {}): Promise<void> {
  const lab = await loadLabDefinition(file, { target: opts.target });
  const plan = makePlan(lab);
  const { expected, timed } = planSeconds(lab, plan);
  const budget = lab.repetitions.budgetMinutes;
  const repetitions = repetitionsWarning(lab);
  process.stdout.write(
    `ok: ${file}: lab ${lab.name}, ${lab.hosts.length} host(s), ${plan.trials.length} trials (${plan.mode})\n` +
      `  trials' expected time: ${hours(expected)} on a 2-core machine without KVM (as calibrated); ` +
      `with KVM between ${hours(timed)} (the timed work alone, which no accelerator shortens) and that. ` +
      'Not counted: up (boot, prepare) and down.\n' +
      (repetitions ? `  warning: ${repetitions}\n` : '') +
      (lab.target.kind === 'aws'
        ? cloudLines(lab, budget !== undefined ? budget / 60 : timed / 3600, budget !== undefined)
        : ''),
  );
}
