import { teardown, teardownByName } from '../phases/teardown.js';
import { type LabCliOptions, checkCliName, lockLab, requireLab } from './context.js';

/** `layerlab down`: by the lab definition, or (`--name`, no definition) a local lab by its name. */
export async function downCommand(opts: LabCliOptions & { name?: string }): Promise<void> {
  if (opts.name !== undefined && !opts.lab) {
    checkCliName('--name', opts.name);
    lockLab(opts.name);
    await teardownByName(opts.name);
    return;
  }
  const { lab, targetOptions } = await requireLab(opts);
  await teardown(lab, targetOptions);
}
