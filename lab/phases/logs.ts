import { join } from 'node:path';
import type { LabDefinition } from '../definition/schema.js';
import { labStateDir } from '../paths.js';
import { HostLog } from '../util/log.js';

/** Controller-side log of a lab's lifecycle (image builds, qemu, pulumi). */
export function labLog(lab: string): HostLog {
  return new HostLog(join(labStateDir(lab), 'controller.log'));
}

/** One log per host of the lab (ssh, prepare), beside the controller's. */
export function hostLogFor(lab: LabDefinition): (host: string) => HostLog {
  return (host: string) => new HostLog(join(labStateDir(lab.name), 'hosts', `${host}.log`));
}
