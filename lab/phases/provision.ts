import type { LabDefinition } from '../definition/schema.js';
import type { Provisioned, TargetOptions } from '../targets/driver.js';
import { driverFor } from '../targets/index.js';
import type { ToolImage } from '../toolimages/toolimages.js';
import { say } from '../util/log.js';
import { hostLogFor, labLog } from './logs.js';
import { buildToolImages } from './prepare.js';

/** Hosts that exist, the tool images to load on them, and when provisioning began (for the boot deadline). */
export interface ProvisionedLab {
  provisioned: Provisioned;
  images: ToolImage[];
  started: number;
}

/**
 * Creates (or finds) the lab's hosts on its target (local: VMs booted in
 * parallel) while the tool images build, both at once.
 * `ephemeral`: this process will tear the lab down itself (`all`).
 */
export async function provision(
  lab: LabDefinition,
  labFile: string,
  opts: TargetOptions = {},
  ephemeral = false,
): Promise<ProvisionedLab> {
  const started = Date.now();
  const log = labLog(lab.name);
  try {
    const [provisioned, images] = await Promise.all([
      driverFor(lab).provision(lab, labFile, opts, { ephemeral, log, hostLog: hostLogFor(lab), progress: say }),
      buildToolImages(lab, log),
    ]);
    return { provisioned, images, started };
  } finally {
    await log.close();
  }
}
