import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as pulumi from '@pulumi/pulumi';
import type { Inventory } from '../../lab/targets/types.js';
import type { LocalLabInputs, LocalLabOutputs } from './lab.js';

export type { LocalLabInputs, LocalLabOutputs } from './lab.js';

/**
 * Pulumi serializes the provider's functions to text and runs them in its
 * provider host, a plain `node` without the project's `nodeargs` (no tsx):
 * there a `.ts` module cannot be imported as such. So the functions capture
 * two absolute URLs as plain strings (they may capture values, not imported
 * bindings) and load the lab code through tsx's own API, which works in a
 * plain node as in the CLI (bin/layerlab.js does the same).
 */
const LAB_MODULE = new URL('./lab.ts', import.meta.url).href;
/** Resolved here, from this checkout's node_modules: the host's own module paths are not ours. */
const TSX_API = import.meta.resolve('tsx/esm/api');

type LabModule = typeof import('./lab.js');

/** The lab code, loaded once per process (the provider host calls create and delete many times). */
function labModule(): Promise<LabModule> {
  const cache = globalThis as { __layerlabLocalLab?: Promise<LabModule> };
  cache.__layerlabLocalLab ??= import(TSX_API).then(
    (tsx: { tsImport: (specifier: string, parentURL: string) => Promise<LabModule> }) =>
      tsx.tsImport(LAB_MODULE, LAB_MODULE),
  );
  return cache.__layerlabLocalLab;
}

/** Boots and prepares the lab: the same `up` that `layerlab up` runs. */
export async function createLocalLab(inputs: LocalLabInputs): Promise<LocalLabOutputs> {
  return (await labModule()).createLab(inputs);
}

/** Powers off and deletes the lab's VMs and disks: the same `localDown` as `layerlab down`. */
export async function deleteLocalLab(labName: string): Promise<void> {
  await (await labModule()).deleteLab(labName);
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
