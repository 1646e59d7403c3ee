import { join } from 'node:path';
import { loadLabDefinition } from '../definition/load.js';
import type { LabDefinition } from '../definition/schema.js';
import { UserError } from '../errors.js';
import { labStateDir } from '../paths.js';
import type { TargetOptions } from '../targets/driver.js';
import { TARGET_DRIVERS } from '../targets/index.js';
import { HostLog } from '../util/log.js';

/** The options every command that touches hosts takes. */
export interface LabCliOptions {
  lab?: string;
  target?: string;
  inventory?: string;
  stack?: string;
  sshCidr?: string[];
}

export interface LoadedLab {
  lab: LabDefinition;
  file: string;
  targetOptions: TargetOptions;
}

/**
 * Loads the lab definition (with `--target`; `--inventory` implies static)
 * and runs the target's preflight: everything is checked before anything starts.
 */
export async function requireLab(opts: LabCliOptions): Promise<LoadedLab> {
  const file = opts.lab;
  if (!file) throw new UserError('no lab definition given; pass --lab <file> (e.g. --lab labs/quick.yaml)');
  const target = opts.target ?? (opts.inventory ? 'static' : undefined);
  if (opts.inventory && target !== 'static') {
    throw new UserError(`--inventory describes existing machines (target static), not target ${target}`);
  }
  const lab = await loadLabDefinition(file, { target });
  const targetOptions: TargetOptions = { inventoryFile: opts.inventory, stack: opts.stack, sshCidrs: opts.sshCidr };
  await TARGET_DRIVERS[lab.target.kind].preflight(lab, targetOptions);
  return { lab, file, targetOptions };
}

/** How to remove a lab by hand, for messages after a failure or a forced exit. */
export function downHint(loaded: LoadedLab): string {
  const { lab, file, targetOptions } = loaded;
  if (lab.target.kind === 'local') return `layerlab down --name ${lab.name}`;
  const extra = targetOptions.inventoryFile ? ` --inventory ${targetOptions.inventoryFile}` : '';
  return `layerlab down --lab ${file} --target ${lab.target.kind}${extra}; layerlab sweep`;
}

/** Controller-side log of a lab's lifecycle (image builds, qemu, pulumi). */
export function labLog(lab: string): HostLog {
  return new HostLog(join(labStateDir(lab), 'controller.log'));
}
