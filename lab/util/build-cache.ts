import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isAlive } from './proc.js';
import { sleep } from './time.js';

/** The pid lock a build of `dir` holds while it runs. */
const buildLock = (dir: string) => `${dir}.lock`;

/** Whether a build of `dir` is under way: its lock names a live process. */
export function buildUnderWay(dir: string): boolean {
  try {
    const owner = Number(readFileSync(buildLock(dir), 'utf8').trim());
    return owner > 0 && isAlive(owner);
  } catch {
    return false; // no lock: nobody builds it
  }
}

/**
 * Builds `dir` once: `marker` inside it says the build finished. Parallel
 * callers (two hosts, two processes) wait on a pid lock instead of building twice.
 */
export async function ensureBuilt(dir: string, marker: string, build: () => Promise<void>): Promise<void> {
  if (existsSync(join(dir, marker))) return;
  const lock = buildLock(dir);
  await mkdir(join(dir, '..'), { recursive: true });
  for (;;) {
    try {
      await writeFile(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch {
      const owner = Number(await readFile(lock, 'utf8').catch(() => '0'));
      if (!owner || !isAlive(owner)) await rm(lock, { force: true });
      else await sleep(1000);
      if (existsSync(join(dir, marker))) return;
    }
  }
  try {
    if (!existsSync(join(dir, marker))) await build();
  } finally {
    await rm(lock, { force: true });
  }
}

/** A cache folder `sweep` would remove, with its size and why. */
export interface StaleCacheEntry {
  dir: string;
  bytes: number;
  reason: string;
}

/** Bytes of the files directly in `dir` (a cache entry: an image folder). */
export function cacheEntryBytes(dir: string): number {
  return readdirSync(dir).reduce((n, f) => n + (statSync(join(dir, f), { throwIfNoEntry: false })?.size ?? 0), 0);
}

/**
 * Days since `file` was last read or written (atime: a boot or an upload reads
 * it; relatime keeps it within a day), or since `dir` changed when it is gone.
 */
export function daysUnused(file: string, dir: string): number {
  const st = statSync(file, { throwIfNoEntry: false });
  const last = st ? Math.max(st.atimeMs, st.mtimeMs) : statSync(dir).mtimeMs;
  return (Date.now() - last) / 86_400_000;
}

/** Removes a cache folder `sweep` found stale. */
export async function removeCacheEntry(entry: StaleCacheEntry): Promise<void> {
  await rm(entry.dir, { recursive: true, force: true });
}
