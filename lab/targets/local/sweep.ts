import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { NAME_RE } from '../../catalog.js';
import { errorMessage } from '../../errors.js';
import { labLockPath, labLockWhat, labsRoot, removeLabStateDir } from '../../paths.js';
import { lockHolder, withLock } from '../../util/lock.js';
import { isProcessAlive } from '../../util/proc.js';
import { isRunning, localDown } from './local.js';
import { type LocalLabState, labStateDir, readLocalState } from './state.js';

/**
 * What layerlab itself writes into a lab's state folder (any target): a
 * folder without state.json is removed only when it holds nothing else, so a
 * file someone put there is never swept away with it.
 */
const STATE_ENTRY = /^(state\.json(\.tmp-\d+)?|controller\.log|hosts|static|aws)$/;

export interface SweepFinding {
  lab: string;
  /** What is there and why it may (or may not) go. */
  reason: string;
  remove: boolean;
}

/**
 * Local labs that nobody will tear down: VMs whose owning controller (`all`)
 * is gone, and disks or state of labs with no VM running. Labs made by `up`
 * with VMs running are kept: they are up on purpose until `down`. A lab
 * another layerlab process is working on (its lock is held) is never touched.
 */
export function findLocalLeftovers(): SweepFinding[] {
  const root = labsRoot();
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true }).flatMap((entry): SweepFinding[] => {
    const lab = entry.name;
    // Only folders named as layerlab names labs are its state; anything else is someone else's.
    if (!entry.isDirectory() || !NAME_RE.test(lab)) {
      return [{ lab, reason: `${join(root, lab)} is not a lab state folder: left alone`, remove: false }];
    }
    const holder = lockHolder(labLockPath(lab));
    if (holder) {
      const reason = `in use by pid ${holder.pid} since ${holder.since} (${holder.command}): skipped`;
      return [{ lab, reason, remove: false }];
    }
    let state: LocalLabState | undefined;
    try {
      state = readLocalState(lab);
    } catch (err) {
      // One unreadable lab must not stop the sweep of the others.
      const file = join(labStateDir(lab), 'state.json');
      return [
        { lab, reason: `${file} cannot be read (${errorMessage(err)}): kept; fix or remove it by hand`, remove: false },
      ];
    }
    if (!state) {
      if (existsSync(join(labStateDir(lab), 'aws'))) return []; // a cloud lab's saved inventory: the cloud sweep's
      const foreign = readdirSync(labStateDir(lab)).filter((name) => !STATE_ENTRY.test(name));
      if (foreign.length) {
        const names = foreign.slice(0, 5).join(', ');
        return [{ lab, reason: `state folder holds files layerlab does not make (${names}): kept`, remove: false }];
      }
      return [{ lab, reason: 'state folder without state.json', remove: true }];
    }
    const hosts = Object.values(state.hosts);
    const running = hosts.filter((h) => isRunning(h));
    if (state.owner && !isProcessAlive(state.owner)) {
      return [
        {
          lab,
          reason: `owner process ${state.owner.pid} is gone; ${running.length} VM(s) still running`,
          remove: true,
        },
      ];
    }
    if (!running.length) return [{ lab, reason: `no VM running; ${hosts.length} host folder(s) left`, remove: true }];
    const owner = state.owner ? `owned by running process ${state.owner.pid}` : 'made by `up`';
    return [{ lab, reason: `${running.length} VM(s) running, ${owner}: kept`, remove: false }];
  });
}

/** Removes one lab found by findLocalLeftovers, holding its lock (LockHeldError if it was taken since). */
export async function removeLocalLeftover(lab: string): Promise<void> {
  await withLock(labLockPath(lab), labLockWhat(lab), async () => {
    if (readLocalState(lab)) await localDown(lab);
    else await removeLabStateDir(lab);
  });
}
