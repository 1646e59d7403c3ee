import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { errorMessage } from '../errors.js';
import { GUEST_DIR, cacheRoot } from '../paths.js';
import { type StaleCacheEntry, cacheEntryBytes, daysUnused } from '../util/build-cache.js';
import { isAlive } from '../util/proc.js';
import { ARCHIVE, controllerSources, toolCacheDir, toolImageTag } from './toolimages.js';

/** A tool image is kept this long after its last use even when no recipe of this checkout makes it any more. */
export const TOOL_IMAGE_UNUSED_DAYS = 7;

export type StaleToolImage = StaleCacheEntry;

/** layerlab-<name>-<16 hex>: what toolCacheDir names the folder of a tag. */
const TOOL_IMAGE_NAME = /^layerlab-[a-z0-9-]+-[0-9a-f]{16}$/;

/** Folder names of the tags this checkout's recipes give with this controller's apt sources. */
async function currentFolders(): Promise<Set<string>> {
  const sources = await controllerSources();
  if (sources.length === 0) throw new Error('this machine has no apt sources: the current tags cannot be computed');
  const names = readdirSync(join(GUEST_DIR, 'images'))
    .filter((f) => f.endsWith('.image'))
    .map((f) => f.slice(0, -'.image'.length));
  const tags = await Promise.all(names.map((name) => toolImageTag(name, sources)));
  return new Set(tags.map((tag) => basename(toolCacheDir(tag))));
}

/**
 * Folders the "latest" pointers name: what a controller that cannot build
 * loads next (tools/<name>.latest, and per lab tools/latest/<lab>/<name>).
 * Their tags come from a lab host's apt sources and need not be current here.
 */
function pointedTo(root: string): Set<string> {
  const pointers = readdirSync(root)
    .filter((f) => f.endsWith('.latest'))
    .map((f) => join(root, f));
  const perLab = join(root, 'latest');
  if (existsSync(perLab)) {
    for (const lab of readdirSync(perLab)) {
      const dir = join(perLab, lab);
      if (statSync(dir).isDirectory()) pointers.push(...readdirSync(dir).map((f) => join(dir, f)));
    }
  }
  return new Set(pointers.map((p) => basename(toolCacheDir(readFileSync(p, 'utf8').trim()))));
}

/** Whether a build of `dir` is under way: its lock names a live process (ensureBuilt). */
function building(dir: string): boolean {
  try {
    const owner = Number(readFileSync(`${dir}.lock`, 'utf8').trim());
    return owner > 0 && isAlive(owner);
  } catch {
    return false; // no lock: nobody builds it
  }
}

/**
 * Tool image archives (a few MB; `large` much more) that no prepare here
 * loads any more: their tag is not the one this checkout's recipe, builder
 * and this machine's apt sources give, and no "latest" pointer names it.
 * One is kept while a build of it is under way or it was used in the last
 * TOOL_IMAGE_UNUSED_DAYS days (another checkout sharing this cache may
 * still load it). `unchecked` says why nothing could be judged.
 */
export async function staleToolImages(): Promise<{ stale: StaleToolImage[]; unchecked?: string }> {
  const root = join(cacheRoot(), 'tools');
  if (!existsSync(root)) return { stale: [] };
  let current: Set<string>;
  try {
    current = await currentFolders();
  } catch (err) {
    return { stale: [], unchecked: errorMessage(err) };
  }
  const pointed = pointedTo(root);
  const stale: StaleToolImage[] = [];
  for (const name of readdirSync(root)) {
    const dir = join(root, name);
    if (!TOOL_IMAGE_NAME.test(name) || current.has(name) || pointed.has(name)) continue;
    if (!statSync(dir).isDirectory() || building(dir)) continue;
    const days = daysUnused(join(dir, ARCHIVE), dir);
    if (days <= TOOL_IMAGE_UNUSED_DAYS) continue;
    const why = existsSync(join(dir, ARCHIVE))
      ? 'not the current image of its recipe (the recipe, the builder or the apt sources changed)'
      : 'a build that never finished';
    stale.push({ dir, bytes: cacheEntryBytes(dir), reason: `${why}, unused for ${Math.floor(days)} days` });
  }
  return { stale };
}

export async function removeToolImage(image: StaleToolImage): Promise<void> {
  await rm(image.dir, { recursive: true, force: true });
}
