import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { OS_RELEASE_NAMES } from '../../catalog.js';
import { errorMessage } from '../../errors.js';
import { cacheRoot, labsRoot } from '../../paths.js';
import { type StaleCacheEntry, cacheEntryBytes, daysUnused } from '../../util/build-cache.js';
import { isWithin, openFilesUnder } from '../../util/proc.js';
import { KERNEL_FLAVOURS, guestImageDir, guestImageKey } from './image.js';
import { readLocalState } from './state.js';

/** A guest image is kept this long after its last use even when no checkout here builds it any more. */
export const IMAGE_UNUSED_DAYS = 7;

export type StaleGuestImage = StaleCacheEntry;

/** guest-<release>[-<kernel>]-<16 hex>: what ensureGuestImage names a finished or unfinished build. */
const GUEST_IMAGE_NAME = /^guest-[a-z0-9-]+-[0-9a-f]{16}$/;

/** Image keys the hosts of this state folder's local labs were booted from (a lab that is up keeps its image). */
function keysOfLabs(): Set<string> {
  const root = labsRoot();
  if (!existsSync(root)) return new Set();
  return new Set(
    readdirSync(root).flatMap((lab) => {
      try {
        return Object.values(readLocalState(lab)?.hosts ?? {}).flatMap((h) => (h.imageKey ? [h.imageKey] : []));
      } catch {
        return []; // an unreadable state is the lab sweep's to report
      }
    }),
  );
}

/**
 * Guest images (~760 MB each) no `up` of this checkout boots any more: built
 * from a recipe, package list or apt sources that have changed since, so
 * their key is no longer the current one of any release and kernel. One is
 * kept while anything may still need it: a process has a file of it open (a
 * VM's disk is backed by it, whichever state folder started it), a lab of
 * this state folder records its key, or it was used in the last
 * IMAGE_UNUSED_DAYS days (another checkout sharing this cache may still boot
 * it). `unchecked` says why nothing could be judged (no apt sources: the
 * current keys cannot be computed).
 */
export async function staleGuestImages(): Promise<{ stale: StaleGuestImage[]; unchecked?: string }> {
  const root = join(cacheRoot(), 'images');
  if (!existsSync(root)) return { stale: [] };
  const current = new Set<string>();
  try {
    for (const release of OS_RELEASE_NAMES) {
      for (const kernel of KERNEL_FLAVOURS) {
        current.add(basename(guestImageDir(release, kernel, await guestImageKey(release, kernel))));
      }
    }
  } catch (err) {
    return { stale: [], unchecked: errorMessage(err) };
  }
  const usedByLabs = keysOfLabs();
  const open = openFilesUnder(root);
  const stale: StaleGuestImage[] = [];
  for (const name of readdirSync(root)) {
    const dir = join(root, name);
    if (!GUEST_IMAGE_NAME.test(name) || current.has(name) || !statSync(dir).isDirectory()) continue;
    if (usedByLabs.has(name.slice(-16)) || open.some((file) => isWithin(file, dir))) continue;
    const days = daysUnused(join(dir, 'base.raw'), dir);
    if (days <= IMAGE_UNUSED_DAYS) continue;
    stale.push({
      dir,
      bytes: cacheEntryBytes(dir),
      reason: `not the current image of any release and kernel (its recipe, package lists or apt sources changed), unused for ${Math.floor(days)} days`,
    });
  }
  return { stale };
}
