import type { LabDefinition } from '../definition/schema.js';
import { prepareProvisioned } from '../phases/prepare.js';
import { type ProvisionMode, provision } from '../phases/provision.js';
import type { TargetOptions } from '../targets/driver.js';
import type { Inventory } from '../targets/types.js';
import { type LabCliOptions, requireLab } from './context.js';

/**
 * Stands the lab up on its target: hosts created (local: VMs booted in
 * parallel while the tool images build), then every host prepared in parallel.
 * (infra/local/provider.ts runs this too.)
 */
export async function up(
  lab: LabDefinition,
  labFile: string,
  opts: TargetOptions = {},
  mode: ProvisionMode = {},
): Promise<Inventory> {
  return prepareProvisioned(lab, await provision(lab, labFile, opts, mode));
}

/** `layerlab up --lab <file> [--cold]`. */
export async function upCommand(opts: LabCliOptions & { cold?: boolean }): Promise<void> {
  const { lab, file, targetOptions } = await requireLab(opts);
  await up(lab, file, targetOptions, { cold: opts.cold });
}
