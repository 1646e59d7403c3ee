import { backup } from './backup/scenario.js';
import { dbImport } from './db-import/scenario.js';
import { dbench } from './dbench/scenario.js';
import { fio } from './fio/scenario.js';
import { lifecycle } from './lifecycle/scenario.js';
import { lifetime } from './lifetime/scenario.js';
import { permissions } from './permissions/scenario.js';
import type { Scenario } from './types.js';

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

// Every entry must be a Scenario of its own parameter type.
const _check: Record<string, Scenario<never>> = SCENARIOS as unknown as Record<string, Scenario<never>>;
void _check;

export type ScenarioName = keyof typeof SCENARIOS;
export const SCENARIO_NAMES = Object.keys(SCENARIOS) as [ScenarioName, ...ScenarioName[]];

export function getScenario(name: string): Scenario<unknown> | undefined {
  return (SCENARIOS as Record<string, Scenario<unknown>>)[name];
}
