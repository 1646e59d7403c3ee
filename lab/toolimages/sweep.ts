import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { errorMessage } from '../errors.js';
import { cacheRoot } from '../paths.js';
import { type StaleCacheEntry, buildUnderWay, cacheEntryBytes, daysUnused } from '../util/build-cache.js';
import {
  ARCHIVE,
  controllerSources,
  latestPointedTags,
  recipeNames,
  toolCacheDir,
  toolImageTag,
} from './toolimages.js';

/** A tool image is kept this long after its last use even when no recipe of this checkout makes it any more. */
export const TOOL_IMAGE_UNUSED_DAYS = 7;

export type StaleToolImage = StaleCacheEntry;

/** layerlab-<name>-<16 hex>: what toolCacheDir names the folder of a tag. */
const TOOL_IMAGE_NAME = /^layerlab-[a-z0-9-]+-[0-9a-f]{16}$/;

const folderOf = (tag: string) => basename(toolCacheDir(tag));

/** Folder names of the tags this checkout's recipes give with this controller's apt sources. */
async function currentFolders(): Promise<Set<string>> {
  const sources = await controllerSources();
  if (sources.length === 0) throw new Error('this machine has no apt sources: the current tags cannot be computed');
  const tags = await Promise.all(recipeNames().map((name) => toolImageTag(name, sources)));
  return new Set(tags.map(folderOf));
}

/**
 * Tool image archives (a few MB; `large` much more) that no prepare here
 * loads any more: their tag is not the one this checkout's recipe, builder
 * and this machine's apt sources give, and no lab's pointer names it.
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
  // What a controller that cannot build loads next for each lab: images that lab's hosts built.
  const pointed = new Set(latestPointedTags().map(folderOf));
  const stale: StaleToolImage[] = [];
  for (const name of readdirSync(root)) {
    const dir = join(root, name);
    if (!TOOL_IMAGE_NAME.test(name) || current.has(name) || pointed.has(name)) continue;
    if (!statSync(dir).isDirectory() || buildUnderWay(dir)) continue;
    const days = daysUnused(join(dir, ARCHIVE), dir);
    if (days <= TOOL_IMAGE_UNUSED_DAYS) continue;
    const why = existsSync(join(dir, ARCHIVE))
      ? 'not the current image of its recipe (the recipe, the builder or the apt sources changed)'
      : 'a build that never finished';
    stale.push({ dir, bytes: cacheEntryBytes(dir), reason: `${why}, unused for ${Math.floor(days)} days` });
  }
  return { stale };
}
