import type { TargetKind } from '../catalog.js';
import type { LabDefinition } from '../definition/schema.js';
import { awsDriver } from './aws/driver.js';
import type { TargetDriver } from './driver.js';
import { localDriver } from './local/driver.js';
import { staticDriver } from './static/driver.js';

/** Every target kind in the catalog has exactly one driver. */
export const TARGET_DRIVERS: Record<TargetKind, TargetDriver> = {
  local: localDriver,
  aws: awsDriver,
  static: staticDriver,
};

/** The driver of the lab's target. */
export function driverFor(lab: LabDefinition): TargetDriver {
  return TARGET_DRIVERS[lab.target.kind];
}
