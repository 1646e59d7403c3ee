import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeOwnedChild } from './util/owned-dir.js';

/** The layerlab package itself (guest/, lab/scenarios/ are pushed from here). */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const GUEST_DIR = join(PACKAGE_ROOT, 'guest');

/** Where a lab's machines are tracked (pids, ports, disks, keys): per working directory. */
export function stateRoot(): string {
  return resolve(process.env.LAYERLAB_HOME ?? '.layerlab');
}

/** The folder that holds one folder per lab; the only place lab state is ever deleted from. */
export function labsRoot(): string {
  return join(stateRoot(), 'labs');
}

/** One lab's state: VMs, disks and keys (local), the saved inventory (aws), logs. */
export function labStateDir(lab: string): string {
  return join(labsRoot(), lab);
}

/** Deletes one lab's state folder, and nothing that is not directly inside labsRoot(). */
export function removeLabStateDir(lab: string): Promise<void> {
  return removeOwnedChild(labsRoot(), lab);
}

/**
 * Held while a command works on a lab (up, run, down, all, selftest, sweep).
 * Beside the labs, not in a lab's folder: it outlives `down` deleting that folder.
 */
export function labLockPath(lab: string): string {
  return join(stateRoot(), 'locks', `${lab}.lock`);
}

/** How a lab's lock is named to another layerlab process that finds it held. */
export const labLockWhat = (lab: string) => `lab ${lab}`;

export function resultsRoot(): string {
  return resolve(process.env.LAYERLAB_RESULTS ?? 'results');
}

/** Built guest and tool images, shared by every lab on the machine. */
export function cacheRoot(): string {
  if (process.env.LAYERLAB_CACHE) return resolve(process.env.LAYERLAB_CACHE);
  const xdg = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  return join(xdg, 'layerlab');
}

/** Where guest/ and the scenarios live on a host (root's, 0700: checked before each push). */
export const REMOTE_ROOT = '/opt/layerlab';
/** Scratch space on a host: guest/lib.sh's LL_WORK, root's and 0700, never under /var/tmp (any user can plant there). */
export const REMOTE_WORK = '/var/lib/layerlab/work';
export const REMOTE_TRIALS = `${REMOTE_WORK}/trials`;
/** The output folder of the trial running on a host (one at a time). */
export const REMOTE_TRIAL_OUT = `${REMOTE_TRIALS}/current`;
export const REMOTE_ENV = `${REMOTE_WORK}/env`;
