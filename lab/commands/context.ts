import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NAME_RE } from '../catalog.js';
import { loadLabDefinition } from '../definition/load.js';
import { UserError } from '../errors.js';
import { labLockPath, labLockWhat } from '../paths.js';
import { isRunId } from '../record/layout.js';
import type { LoadedLab, TargetOptions } from '../targets/driver.js';
import { driverFor } from '../targets/index.js';
import { type Lock, acquireLock, assertNotHeld, withLock } from '../util/lock.js';

/**
 * A name given on the command line (`--name`, `--stack`, `--lab` of history)
 * becomes a folder or a stack name: it must obey the rule names in lab
 * definitions obey, or `down --name ../..` would reach outside the lab state.
 */
export function checkCliName(option: string, value: string): string {
  if (!NAME_RE.test(value)) {
    throw new UserError(
      `${option}: expected a name of lowercase letters, digits and "-", starting with a letter, at most 31 characters (as in lab definitions); got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/**
 * A run given on the command line: a folder path that holds a run
 * (manifest.json), or a run id — which is joined to the results folder, so
 * it must be one (`20261130-101500-quick-1a2b`), never `../x`.
 */
export function checkRunRef(option: string, ref: string): string {
  if (existsSync(join(ref, 'manifest.json')) || isRunId(ref)) return ref;
  throw new UserError(
    `${option}: expected a run id (like 20261130-101500-quick-1a2b) or the path of a run folder (one with manifest.json); got ${JSON.stringify(ref)}`,
  );
}

/** Takes the lab's lock (exit 2 naming the holder when another process has it); released on exit. */
export function lockLab(lab: string): Lock {
  return acquireLock(labLockPath(lab), labLockWhat(lab));
}

/** Runs `fn` holding the lab's lock, released however `fn` ends. */
export function withLabLock<T>(lab: string, fn: () => Promise<T>): Promise<T> {
  return withLock(labLockPath(lab), labLockWhat(lab), fn);
}

/** The options every command that touches hosts takes. */
export interface LabCliOptions {
  lab?: string;
  target?: string;
  inventory?: string;
  stack?: string;
  sshCidr?: string[];
}

export type { LoadedLab };

/**
 * Loads the lab definition (with `--target`; `--inventory` implies static)
 * and runs the target's preflight: everything is checked before anything starts.
 * Then the lab is locked for this process (every caller changes or uses its hosts).
 */
export async function requireLab(opts: LabCliOptions): Promise<LoadedLab> {
  const file = opts.lab;
  if (!file) throw new UserError('no lab definition given; pass --lab <file> (e.g. --lab labs/quick.yaml)');
  const target = opts.target ?? (opts.inventory ? 'static' : undefined);
  if (opts.inventory && target !== 'static') {
    throw new UserError(`--inventory describes existing machines (target static), not target ${target}`);
  }
  if (opts.stack !== undefined) checkCliName('--stack', opts.stack);
  const lab = await loadLabDefinition(file, { target });
  const targetOptions: TargetOptions = { inventoryFile: opts.inventory, stack: opts.stack, sshCidrs: opts.sshCidr };
  // A lab in use is refused before the (possibly slow) preflight; the lock is
  // taken after it, so that input refused by preflight leaves no state behind.
  assertNotHeld(labLockPath(lab.name), labLockWhat(lab.name));
  await driverFor(lab).preflight(lab, targetOptions);
  lockLab(lab.name);
  return { lab, file, targetOptions };
}
