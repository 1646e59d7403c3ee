import type { LabDefinition } from '../definition/schema.js';
import { LabError } from '../errors.js';
import type { DownReport, LoadedLab, TargetOptions } from '../targets/driver.js';
import { TARGET_DRIVERS, driverFor } from '../targets/index.js';
import { say } from '../util/log.js';

function sayReports(reports: readonly DownReport[], lab: string): void {
  for (const r of reports) say(`${r.host}: ${r.detail}`);
  if (reports.some((r) => !r.removed)) throw new LabError(`lab ${lab}: teardown incomplete`);
}

/** Removes what the lab's target created; throws when a host could not be cleaned. */
export async function teardown(lab: LabDefinition, opts: TargetOptions): Promise<void> {
  say(`tearing down lab ${lab.name} (${lab.target.kind})`);
  sayReports(await driverFor(lab).down(lab, opts, say), lab.name);
  say(`lab ${lab.name} is down`);
}

/**
 * `down --name`: a local lab found by its name alone (its definition file
 * gone); only the local target keeps state a name finds.
 */
export async function teardownByName(name: string): Promise<void> {
  const { downByName } = TARGET_DRIVERS.local;
  if (!downByName) throw new LabError('the local target cannot remove a lab by its name');
  say(`tearing down local lab ${name}`);
  sayReports(await downByName(name), name);
  say(`lab ${name} is down; its state directory is removed`);
}

/** How to remove the lab by hand, for messages after a failure or a forced exit. */
export function downHint({ lab, file, targetOptions }: LoadedLab): string {
  return driverFor(lab).downHint(lab, file, targetOptions);
}
