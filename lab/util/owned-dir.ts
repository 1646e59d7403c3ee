import { execFile } from 'node:child_process';
import { lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { promisify } from 'node:util';
import { LabError } from '../errors.js';

/**
 * The one way layerlab deletes a folder tree of its own state: `name` must be
 * a direct child of `parent` — after resolving `..`, and after resolving
 * symlinks (a symlinked child is refused, not followed). Whatever a name from
 * the command line or a file says, nothing outside `parent` is ever deleted.
 * A child that does not exist is fine (nothing to do).
 */
export async function removeOwnedChild(parent: string, name: string): Promise<void> {
  const target = resolve(parent, name);
  const refuse = (why: string) =>
    new LabError(`refusing to delete ${target}: ${why}; layerlab deletes only what it made directly inside ${parent}`);
  if (name === '' || name === '.' || name === '..' || dirname(target) !== resolve(parent) || basename(target) !== name)
    throw refuse(`"${name}" is not a plain folder name`);
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (stat.isSymbolicLink()) throw refuse('it is a symbolic link');
  const real = realpathSync(target);
  if (dirname(real) !== realpathSync(parent)) throw refuse(`it resolves to ${real}`);
  await removeTree(real);
}

/**
 * Deletes a folder tree whatever its depth. A guest can nest folders in a
 * shared folder past PATH_MAX; Node's recursive rm builds whole paths and
 * stops there with ENAMETOOLONG, which would leave a lab half torn down.
 * GNU rm walks the tree relative to each folder (fts with openat), so it is
 * the fallback; `--one-file-system` keeps it out of anything mounted inside.
 */
export async function removeTree(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENAMETOOLONG') throw err;
    await promisify(execFile)('rm', ['-rf', '--one-file-system', '--', path]);
  }
}

/** Creates a folder (and missing parents) that only its owner can enter. */
export function makePrivateDir(path: string): string {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  return path;
}
