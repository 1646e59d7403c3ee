import { runsNeeded, smallestP } from '../analyze/rank-test.js';
import { ALPHA, pValue } from '../analyze/verdict.js';
import { PROFILES } from '../catalog.js';
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

/**
 * Why the time budget (repetitions.budgetMinutes) cannot hold the minimum
 * repetitions, or undefined when it can: the stop rule ends a run at the
 * budget, so a budget shorter than `min` repetitions' trials leaves cells
 * below the n the lab asked for. Judged from the timed work (what no
 * accelerator shortens: it cannot fit) and, on the local target, from the
 * calibrated estimate without KVM (it may not fit).
 */
export function budgetWarning(lab: LabDefinition, plan: Plan): string | undefined {
  const budget = lab.repetitions.budgetMinutes;
  if (budget === undefined) return undefined;
  const min = lab.repetitions.min;
  const { expected, timed } = planSeconds(lab, { ...plan, trials: plan.trials.filter((t) => t.rep <= min) });
  const start = `repetitions.budgetMinutes ${budget}`;
  if (timed > budget * 60) {
    return `${start} cannot fit the minimum repetitions (${min}): their timed work alone takes ${hours(timed)}, which no machine shortens; the run would stop with cells below ${min} runs. Raise budgetMinutes above ${Math.ceil(timed / 60)}, or lower repetitions.min or the scenarios' runtimes`;
  }
  if (lab.target.kind === 'local' && expected > budget * 60) {
    return `${start} may not fit the minimum repetitions (${min}): they take about ${hours(expected)} on a 2-core machine without KVM (${hours(timed)} of timed work with it); without KVM the run would stop with cells below ${min} runs`;
  }
  return undefined;
}

/**
 * Pairs of hosts that differ in more than the storage profile (the one
 * dimension a lab compares; it brings its engine and, for Flatcar, its
 * image): in the Debian release (and with it the engine's version) or, on
 * the local target where layerlab sizes the VMs, in CPUs, memory or disk.
 * A difference between such hosts cannot be put on the storage alone.
 */
export function hostDifferenceWarnings(lab: LabDefinition): string[] {
  const local = lab.target.kind === 'local';
  const dimensions = (a: LabDefinition['hosts'][number], b: LabDefinition['hosts'][number]) => {
    const debian = PROFILES[a.profile].image === 'debian' && PROFILES[b.profile].image === 'debian';
    const all: [string, string | number, string | number, boolean][] = [
      ['profile', a.profile, b.profile, true],
      ['os', a.os, b.os, debian],
      ['cpus', a.cpus, b.cpus, local],
      ['memoryMiB', a.memoryMiB, b.memoryMiB, local],
      ['diskGiB', a.diskGiB, b.diskGiB, local],
    ];
    return all.filter(([, va, vb, counted]) => counted && va !== vb);
  };
  const warnings: string[] = [];
  lab.hosts.forEach((a, i) => {
    for (const b of lab.hosts.slice(i + 1)) {
      const differ = dimensions(a, b);
      if (differ.length < 2) continue;
      warnings.push(
        `hosts ${a.name} and ${b.name} differ in ${differ.length} dimensions (${differ.map(([dim, va, vb]) => `${dim} ${va} vs ${vb}`).join(', ')}), not only in the storage profile: a difference between them cannot be put on the storage alone; make them alike in everything but the profile`,
      );
    }
  });
  return warnings;
}

/** `layerlab validate <file>`: checks a lab definition and plans it; starts nothing. */
export async function validateCommand(file: string, opts: { target?: string } = {}): Promise<void> {
  const lab = await loadLabDefinition(file, { target: opts.target });
  const plan = makePlan(lab);
  const { expected, timed } = planSeconds(lab, plan);
  const budget = lab.repetitions.budgetMinutes;
  const warnings = [repetitionsWarning(lab), budgetWarning(lab, plan), ...hostDifferenceWarnings(lab)].filter(
    (w): w is string => w !== undefined,
  );
  process.stdout.write(
    `ok: ${file}: lab ${lab.name}, ${lab.hosts.length} host(s), ${plan.trials.length} trials (${plan.mode})\n` +
      `  trials' expected time: ${hours(expected)} on a 2-core machine without KVM (as calibrated); ` +
      `with KVM between ${hours(timed)} (the timed work alone, which no accelerator shortens) and that. ` +
      'Not counted: up (boot, prepare) and down.\n' +
      warnings.map((w) => `  warning: ${w}\n`).join('') +
      (lab.target.kind === 'aws'
        ? cloudLines(lab, budget !== undefined ? budget / 60 : timed / 3600, budget !== undefined)
        : ''),
  );
}
