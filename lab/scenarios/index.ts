import { backup } from './backup/scenario.js';
import { dbImport } from './db-import/scenario.js';
import { dbench } from './dbench/scenario.js';
import { fio } from './fio/scenario.js';
import { lifecycle } from './lifecycle/scenario.js';
import { lifetime } from './lifetime/scenario.js';
import { permissions } from './permissions/scenario.js';
import type { MetricSpec, Scenario } from './types.js';

/** Every scenario the lab knows, by name. Adding one = a folder + a line here. */
export const SCENARIOS = {
  fio,
  dbench,
  'db-import': dbImport,
  lifecycle,
  permissions,
  lifetime,
  backup,
} as const;

export type ScenarioName = keyof typeof SCENARIOS;
export const SCENARIO_NAMES = Object.keys(SCENARIOS) as [ScenarioName, ...ScenarioName[]];

/** The parameter type of each scenario, as its own definition declares it. */
type ParamsOf<K extends ScenarioName> = (typeof SCENARIOS)[K] extends Scenario<infer P> ? P : never;
type ScenarioParams = { [K in ScenarioName]: ParamsOf<K> };

/**
 * The registry seen as "name K → Scenario of K's parameters". The assignment
 * is checked (no cast): an entry that is not a complete Scenario of its own
 * parameter type is refused here. Indexing this with a generic K keeps the
 * link between a scenario and its parameters, which indexing SCENARIOS with a
 * union of names loses.
 */
const REGISTRY: { [K in ScenarioName]: Scenario<ScenarioParams[K]> } = SCENARIOS;

export function isScenarioName(name: string): name is ScenarioName {
  return Object.hasOwn(SCENARIOS, name);
}

/** The scenario called `name`, or undefined (a name from the command line, or from a run recorded by another version). */
export function getScenario(name: string): Scenario<unknown> | undefined {
  return isScenarioName(name) ? SCENARIOS[name] : undefined;
}

/** Metric `metric` of scenario `scenario` as it declares it; undefined for a name this version does not know. */
export function scenarioMetric(scenario: string, metric: string): MetricSpec | undefined {
  return getScenario(scenario)?.metrics.find((m) => m.name === metric);
}

/** A scenario with the lab's parameters applied: what the run, the schema and the guest env need. */
export interface BoundScenario
  extends Omit<
    Scenario<unknown>,
    'params' | 'guestEnv' | 'expectedSeconds' | 'timedSeconds' | 'diskBytes' | 'toolImages' | 'toolImagesFor'
  > {
  name: ScenarioName;
  /** Environment for guest.sh (LL_P_*) from the lab's parameters. */
  guestEnv(): Record<string, string>;
  /** The tool images its trials run in with the lab's parameters. */
  toolImages: readonly string[];
  /** Rough guest seconds per trial with the lab's parameters. */
  expectedSeconds(): number;
  /** The part of it the parameters fix (timed work; 0 when the scenario has none). */
  timedSeconds(): number;
  /** Bytes written on the data disk per trial with the lab's parameters. */
  diskBytes(): number;
}

function bind<P>(name: ScenarioName, scenario: Scenario<P>, params: P): BoundScenario {
  const {
    params: _schema,
    guestEnv,
    expectedSeconds,
    timedSeconds,
    diskBytes,
    toolImages,
    toolImagesFor,
    ...rest
  } = scenario;
  return {
    ...rest,
    name,
    toolImages: [...toolImages, ...(toolImagesFor?.(params) ?? [])],
    guestEnv: () => guestEnv(params),
    expectedSeconds: () => expectedSeconds(params),
    timedSeconds: () => timedSeconds?.(params) ?? 0,
    diskBytes: () => diskBytes(params),
  };
}

/** The part of a lab definition that binds scenarios: its name and each enabled scenario's parameters. */
export interface ConfiguredScenarios {
  name: string;
  scenarios: { [N in ScenarioName]?: ScenarioParams[N] };
}

/**
 * Scenario `name` bound to the parameters `lab` gives it, typed end to end:
 * the lab's `scenarios[name]` is checked against the scenario's own
 * parameter type, so no caller erases it. Throws when the lab does not
 * enable the scenario (a plan never has trials of such a scenario).
 */
export function boundScenario<K extends ScenarioName>(lab: ConfiguredScenarios, name: K): BoundScenario {
  // Checked assignment: the schema's inferred record of parameters must be ScenarioParams, entry by entry.
  const configured: ConfiguredScenarios['scenarios'] = lab.scenarios;
  const params = configured[name];
  if (params === undefined) throw new Error(`scenario ${name} is not enabled in lab ${lab.name}`);
  return bind<ScenarioParams[K]>(name, REGISTRY[name], params);
}
