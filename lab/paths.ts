import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The layerlab package itself (guest/, lab/scenarios/ are pushed from here). */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const GUEST_DIR = join(PACKAGE_ROOT, 'guest');
export const SCENARIOS_DIR = join(PACKAGE_ROOT, 'lab', 'scenarios');

/** Where a lab's machines are tracked (pids, ports, disks, keys): per working directory. */
export function stateRoot(): string {
  return resolve(process.env.LAYERLAB_HOME ?? '.layerlab');
}

/** One lab's state: VMs, disks and keys (local), the saved inventory (aws), logs. */
export function labStateDir(lab: string): string {
  return join(stateRoot(), 'labs', lab);
}

export function resultsRoot(): string {
  return resolve(process.env.LAYERLAB_RESULTS ?? 'results');
}

/** Built guest and tool images, shared by every lab on the machine. */
export function cacheRoot(): string {
  if (process.env.LAYERLAB_CACHE) return resolve(process.env.LAYERLAB_CACHE);
  const xdg = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  return join(xdg, 'layerlab');
}

/** Where guest/ and the scenarios live on a host. */
export const REMOTE_ROOT = '/opt/layerlab';
export const REMOTE_TRIALS = '/var/tmp/layerlab/trials';
export const REMOTE_ENV = '/var/tmp/layerlab/env';
