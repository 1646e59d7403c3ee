import type { LabDefinition } from '../definition/schema.js';
import type { Provisioned, TargetOptions } from '../targets/driver.js';
import { driverFor } from '../targets/index.js';
import type { ToolImage } from '../toolimages/toolimages.js';
import { say } from '../util/log.js';
import { hostLogFor, labLog } from './logs.js';
import { buildToolImages, currentImageTags } from './prepare.js';

/** Hosts that exist, the tool images to load on them, and when provisioning began (for the boot deadline). */
export interface ProvisionedLab {
  provisioned: Provisioned;
  images: ToolImage[];
  started: number;
}

/** How hosts come up: `ephemeral`, this process tears the lab down itself (`all`); `cold`, no prepared template. */
export interface ProvisionMode {
  ephemeral?: boolean;
  cold?: boolean;
}

/**
 * Creates (or finds) the lab's hosts on its target (local: VMs booted in
 * parallel, or restored from prepared templates) while the tool images
 * build, both at once.
 */
export async function provision(
  lab: LabDefinition,
  labFile: string,
  opts: TargetOptions = {},
  mode: ProvisionMode = {},
): Promise<ProvisionedLab> {
  const started = Date.now();
  const log = labLog(lab.name);
  try {
    const hooks = { ...mode, log, hostLog: hostLogFor(lab), progress: say, toolImageTags: await currentImageTags(lab) };
    const [provisioned, images] = await Promise.all([
      driverFor(lab).provision(lab, labFile, opts, hooks),
      buildToolImages(lab, log),
    ]);
    return { provisioned, images, started };
  } finally {
    await log.close();
  }
}
