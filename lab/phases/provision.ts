import type { LabDefinition } from '../definition/schema.js';
import type { Provisioned, TargetOptions } from '../targets/driver.js';
import { driverFor } from '../targets/index.js';
import { controllerCannotBuild } from '../toolimages/toolimages.js';
import { say } from '../util/log.js';
import { hostLogFor, labLog } from './logs.js';
import { type LabToolImages, checkToolImagesObtainable, currentImageTags, gatherToolImages } from './tool-images.js';

/** The tool image tags a prepared template is keyed on; none (no template) when hosts build the images. */
async function templateImageTags(lab: LabDefinition): Promise<Record<string, string> | undefined> {
  return controllerCannotBuild() ? undefined : currentImageTags(lab);
}

/** Hosts that exist, the tool images to load on them, and when provisioning began (for the boot deadline). */
export interface ProvisionedLab {
  provisioned: Provisioned;
  images: LabToolImages;
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
  await checkToolImagesObtainable(lab);
  const log = labLog(lab.name);
  try {
    const hooks = {
      ...mode,
      log,
      hostLog: hostLogFor(lab),
      progress: say,
      toolImageTags: await templateImageTags(lab),
    };
    const [provisioned, images] = await Promise.all([
      driverFor(lab).provision(lab, labFile, opts, hooks),
      gatherToolImages(lab, log),
    ]);
    return { provisioned, images, started };
  } finally {
    await log.close();
  }
}
