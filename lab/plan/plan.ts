import { NO_MOUNT, type ProfileName, type TrialMount } from '../catalog.js';
import { type LabDefinition, enabledScenarios, trialMode } from '../definition/schema.js';
import { UserError } from '../errors.js';
import type { RecordedPlan } from '../record/schemas.js';
import { SCENARIOS, type ScenarioName, isScenarioName } from '../scenarios/index.js';
import { mulberry32, shuffled } from '../util/rng.js';

export interface Trial {
  id: string;
  host: string;
  profile: ProfileName;
  scenario: ScenarioName;
  mount: TrialMount;
  rep: number;
}

export interface Plan {
  seed: number;
  mode: 'serial' | 'parallel';
  /** Execution order. Serial: exactly this. Parallel: this order within each host. */
  trials: Trial[];
}

export function trialId(rep: number, host: string, scenario: string, mount: string): string {
  return `r${rep}-${host}-${scenario}-${mount}`;
}

/** The mount kinds of a lab (as defined, or as a run recorded it). */
export interface LabMounts<M extends string> {
  mounts?: readonly M[];
  scenarioMounts?: Partial<Record<string, readonly M[]>>;
}

/** How many repetitions a scenario runs: its own cap under scenarioRepetitions, else all of them. */
export function scenarioRepetitionCap(
  scenario: string,
  lab: { scenarioRepetitions?: Partial<Record<string, number>> },
): number {
  return lab.scenarioRepetitions?.[scenario] ?? Number.POSITIVE_INFINITY;
}

/**
 * The mount kinds a scenario runs on, in the lab's order: the lab's list, or
 * its narrowed list under scenarioMounts; ["none"] when it brings its own storage.
 */
export function scenarioMounts<M extends string>(scenario: ScenarioName, lab: LabMounts<M>): (M | typeof NO_MOUNT)[] {
  const supported: readonly string[] = SCENARIOS[scenario]?.mounts ?? [];
  if (!supported.length) return [NO_MOUNT];
  const narrowed = lab.scenarioMounts?.[scenario];
  return (lab.mounts ?? []).filter((m) => supported.includes(m) && (!narrowed || narrowed.includes(m)));
}

/**
 * Every repetition runs every cell in a freshly shuffled order — never "all
 * of A, then all of B" — except a scenario's cells past its own cap
 * (scenarioRepetitions). Serial mode shuffles the cells of all hosts together
 * (interleaving hosts); parallel mode shuffles each host's cells on their own.
 */
export function makePlan(lab: LabDefinition, seed = lab.seed): Plan {
  const random = mulberry32(seed);
  const mode = trialMode(lab);
  const trials: Trial[] = [];
  for (let rep = 1; rep <= lab.repetitions.max; rep++) {
    const cellsOf = (host: LabDefinition['hosts'][number]) =>
      enabledScenarios(lab)
        .filter((scenario) => rep <= scenarioRepetitionCap(scenario, lab))
        .flatMap((scenario) => scenarioMounts(scenario, lab).map((mount) => ({ host, scenario, mount })));
    const groups = mode === 'serial' ? [lab.hosts.flatMap(cellsOf)] : lab.hosts.map(cellsOf);
    for (const cells of groups) {
      for (const { host, scenario, mount } of shuffled(cells, random)) {
        trials.push({
          id: trialId(rep, host.name, scenario, mount),
          host: host.name,
          profile: host.profile,
          scenario,
          mount,
          rep,
        });
      }
    }
  }
  return { seed, mode, trials };
}

/**
 * A recorded plan whose trials this version can run (a resume): every
 * scenario name known today. A run of a renamed or removed scenario still
 * re-reports (the record keeps plain names) but cannot be continued.
 */
export function runnablePlan(recorded: RecordedPlan, runId: string): Plan {
  const unknown = [...new Set(recorded.trials.map((t) => t.scenario).filter((name) => !isScenarioName(name)))];
  if (unknown.length) {
    throw new UserError(
      `run ${runId} has trials of scenario(s) ${unknown.join(', ')}, which this version of layerlab does not know; it can be reported (layerlab report ${runId}) but not resumed`,
    );
  }
  return { ...recorded, trials: recorded.trials.map((t) => ({ ...t, scenario: t.scenario as ScenarioName })) };
}
