/**
 * What the local lab's dynamic provider does, as ordinary imports of the
 * lab code: create = `layerlab up`, delete = `layerlab down`, both holding
 * the lab's lock as the CLI does. provider.ts loads this module at run time
 * through tsx's API, so it works in Pulumi's provider host (plain node).
 */
import { withLabLock } from '../../lab/commands/context.js';
import { up } from '../../lab/commands/up.js';
import { loadLabDefinition } from '../../lab/definition/load.js';
import { localDown } from '../../lab/targets/local/local.js';
import type { Inventory } from '../../lab/targets/types.js';

export interface LocalLabInputs {
  labFile: string;
  labName: string;
  /** sha256 of the definition: a changed definition replaces the lab. */
  definitionHash: string;
}

export interface LocalLabOutputs extends LocalLabInputs {
  inventory: Inventory;
}

/** Boots and prepares the lab: the same `up` that `layerlab up` runs. */
export async function createLab(inputs: LocalLabInputs): Promise<LocalLabOutputs> {
  const lab = await loadLabDefinition(inputs.labFile, { target: 'local' });
  const inventory = await withLabLock(lab.name, () => up(lab, inputs.labFile));
  return { ...inputs, inventory };
}

/** Powers off and deletes the lab's VMs and disks: the same `localDown` as `layerlab down`. */
export async function deleteLab(labName: string): Promise<void> {
  await withLabLock(labName, () => localDown(labName));
}
