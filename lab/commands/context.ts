import { join } from 'node:path';
import { loadLabDefinition } from '../definition/load.js';
import type { LabDefinition } from '../definition/schema.js';
import { UserError } from '../errors.js';
import { labStateDir } from '../targets/local/state.js';
import { HostLog } from '../util/log.js';

export interface LoadedLab {
  lab: LabDefinition;
  file: string;
}

export async function requireLab(file: string | undefined): Promise<LoadedLab> {
  if (!file) throw new UserError('no lab definition given; pass --lab <file> (e.g. --lab labs/quick.yaml)');
  const lab = await loadLabDefinition(file);
  if (lab.target.kind !== 'local') {
    throw new UserError(`${file}: target.kind ${lab.target.kind} is not supported by this version`);
  }
  return { lab, file };
}

/** Controller-side log of a lab's lifecycle (image builds, qemu). */
export function labLog(lab: string): HostLog {
  return new HostLog(join(labStateDir(lab), 'controller.log'));
}
