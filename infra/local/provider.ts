import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as pulumi from '@pulumi/pulumi';
import type { Inventory } from '../../lab/targets/types.js';

/**
 * Absolute module URLs, captured as plain strings: Pulumi serializes the
 * provider's functions, so they may capture values but not imported bindings.
 */
const UP_MODULE = new URL('../../lab/commands/up.ts', import.meta.url).href;
const LOAD_MODULE = new URL('../../lab/definition/load.ts', import.meta.url).href;
const LOCAL_MODULE = new URL('../../lab/targets/local/local.ts', import.meta.url).href;
const CONTEXT_MODULE = new URL('../../lab/commands/context.ts', import.meta.url).href;

export interface LocalLabInputs {
  labFile: string;
  labName: string;
  /** sha256 of the definition: a changed definition replaces the lab. */
  definitionHash: string;
}

export interface LocalLabOutputs extends LocalLabInputs {
  inventory: Inventory;
}

/** Runs `fn` holding the lab's lock, as the CLI does: a `layerlab up`/`down` at the same time gets exit 2. */
async function withLabLock<T>(labName: string, fn: () => Promise<T>): Promise<T> {
  const context = (await import(CONTEXT_MODULE)) as typeof import('../../lab/commands/context.js');
  return context.withLabLock(labName, fn);
}

/** Boots and prepares the lab: the same `up` that `layerlab up` runs. */
export async function createLocalLab(inputs: LocalLabInputs): Promise<LocalLabOutputs> {
  const { loadLabDefinition } = (await import(LOAD_MODULE)) as typeof import('../../lab/definition/load.js');
  const { up } = (await import(UP_MODULE)) as typeof import('../../lab/commands/up.js');
  const lab = await loadLabDefinition(inputs.labFile, { target: 'local' });
  const inventory = await withLabLock(lab.name, () => up(lab, inputs.labFile));
  return { ...inputs, inventory };
}

/** Powers off and deletes the lab's VMs and disks: the same `localDown` as `layerlab down`. */
export async function deleteLocalLab(labName: string): Promise<void> {
  const { localDown } = (await import(LOCAL_MODULE)) as typeof import('../../lab/targets/local/local.js');
  await withLabLock(labName, () => localDown(labName));
}

export const localLabProvider: pulumi.dynamic.ResourceProvider<LocalLabInputs, LocalLabOutputs> = {
  async create(inputs) {
    const outs = await createLocalLab(inputs);
    return { id: inputs.labName, outs };
  },
  async diff(_id, olds, news) {
    const changed = olds.definitionHash !== news.definitionHash || olds.labName !== news.labName;
    return { changes: changed, replaces: changed ? ['definitionHash'] : [], deleteBeforeReplace: true };
  },
  async delete(id) {
    await deleteLocalLab(id);
  },
};

/** The local QEMU lab as one Pulumi resource (stack `local`). */
export class LocalLab extends pulumi.dynamic.Resource {
  declare readonly inventory: pulumi.Output<Inventory>;

  constructor(name: string, args: { labFile: string; labName: string }, opts?: pulumi.CustomResourceOptions) {
    const labFile = resolve(args.labFile);
    const definitionHash = createHash('sha256').update(readFileSync(labFile)).digest('hex');
    super(localLabProvider, name, { labFile, labName: args.labName, definitionHash, inventory: undefined }, opts);
  }
}
