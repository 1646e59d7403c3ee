import { NO_MOUNT, type ProfileName, type TrialMount } from '../catalog.js';
import { type LabDefinition, enabledScenarios, trialMode } from '../definition/schema.js';
import { SCENARIOS, type ScenarioName } from '../scenarios/index.js';
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

/** The lab's mount kinds a scenario runs on; ["none"] when it brings its own storage. */
export function scenarioMounts<M extends string>(
  scenario: ScenarioName,
  labMounts: readonly M[],
): (M | typeof NO_MOUNT)[] {
  const supported: readonly string[] = SCENARIOS[scenario]?.mounts ?? [];
  if (!supported.length) return [NO_MOUNT];
  return labMounts.filter((m) => supported.includes(m));
}

/**
 * Every repetition runs every cell in a freshly shuffled order — never "all
 * of A, then all of B". Serial mode shuffles the cells of all hosts together
 * (interleaving hosts); parallel mode shuffles each host's cells on their own.
 */
export function makePlan(lab: LabDefinition, seed = lab.seed): Plan {
  const random = mulberry32(seed);
  const mode = trialMode(lab);
  const cellsOf = (host: LabDefinition['hosts'][number]) =>
    enabledScenarios(lab).flatMap((scenario) =>
      scenarioMounts(scenario, lab.mounts).map((mount) => ({ host, scenario, mount })),
    );
  const trials: Trial[] = [];
  for (let rep = 1; rep <= lab.repetitions.max; rep++) {
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
