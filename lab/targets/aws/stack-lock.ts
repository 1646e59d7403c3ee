import { existsSync, readFileSync, rmSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { labStateDir } from '../../paths.js';
import { writeFileAtomic } from '../../util/files.js';
import { type ProcessIdentity, currentProcessIdentity, isAlive, isProcessAlive } from '../../util/proc.js';

/**
 * Pulumi stack locks, and when one may be broken. A run killed during
 * `pulumi up`/`destroy` leaves the stack locked; Pulumi's DIY backends (file,
 * s3://...) say who holds a lock (user@host, pid, time). layerlab records,
 * beside the lab's state, which of its own processes took the stack and when.
 * A lock is ours to cancel only when all of this holds: that record exists
 * for the stack, it was written on this machine, its process is gone, the
 * lock was taken on this machine by the same user at or after that time, and
 * the lock's own pid (the `pulumi` child) is gone too. Anything else (a live
 * process, another machine or user, a backend that does not say who) is
 * reported, never broken.
 */

/** One lock as Pulumi's DIY backend reports it. */
export interface PulumiLock {
  url: string;
  user: string;
  host: string;
  pid: number;
  /** RFC 3339, seconds. */
  at: string;
}

/** `  <url>: created by <user>@<host> (pid <pid>) at <time>`, one line per lock (pkg/backend/diy/lock.go). */
const LOCK_LINE = /^\s*(\S+): created by (.+)@([^@\s]+) \(pid (\d+)\) at (\S+)\s*$/gm;

export function parseLocks(message: string): PulumiLock[] {
  return [...message.matchAll(LOCK_LINE)].map((m) => ({
    url: m[1] as string,
    user: m[2] as string,
    host: m[3] as string,
    pid: Number(m[4]),
    at: m[5] as string,
  }));
}

/** Pulumi's "someone is updating this stack" answers: the DIY backends' lock, and Pulumi Cloud's 409. */
export function isLockedError(err: unknown): boolean {
  const e = err as { name?: string; message?: string };
  return (
    e?.name === 'ConcurrentUpdateError' ||
    /currently locked by|current locked by|\[409\] Conflict/.test(e?.message ?? '')
  );
}

/** Which layerlab process took a stack, and when (written before `up`/`destroy`, removed after). */
export interface RunMarker extends ProcessIdentity {
  stack: string;
  host: string;
  user: string;
  since: string;
}

function markerFile(lab: string): string {
  return join(labStateDir(lab), 'aws', 'pulumi-run.json');
}

export async function writeRunMarker(lab: string, stack: string): Promise<void> {
  const marker: RunMarker = {
    ...currentProcessIdentity(),
    stack,
    host: hostname(),
    user: userInfo().username,
    since: new Date().toISOString(),
  };
  await writeFileAtomic(markerFile(lab), `${JSON.stringify(marker)}\n`);
}

export function readRunMarker(lab: string): RunMarker | undefined {
  const file = markerFile(lab);
  if (!existsSync(file)) return undefined;
  try {
    const m = JSON.parse(readFileSync(file, 'utf8')) as Partial<RunMarker>;
    if (typeof m.pid !== 'number' || typeof m.startTicks !== 'string' || typeof m.since !== 'string') return undefined;
    return m as RunMarker;
  } catch {
    return undefined; // not one layerlab wrote: proves nothing
  }
}

export function clearRunMarker(lab: string): void {
  rmSync(markerFile(lab), { force: true });
}

/** What this process can see of the world; tests pass their own. */
export interface LockWorld {
  host: string;
  user: string;
  /** A pid running on this machine. */
  pidAlive(pid: number): boolean;
  /** The marker's process (pid and start time) still running. */
  markerAlive(marker: RunMarker): boolean;
}

export const thisMachine = (): LockWorld => ({
  host: hostname(),
  user: userInfo().username,
  pidAlive: isAlive,
  markerAlive: isProcessAlive,
});

export type LockVerdict = { cancel: true; why: string } | { cancel: false; why: string };

/** Lock timestamps have whole seconds: a lock taken in the marker's own second is still after it. */
const CLOCK_SLACK_MS = 1_000;

/** Whether the locks on `stack` were left by a dead layerlab run of this machine (then cancel), and why. */
export function judgeLocks(
  stack: string,
  locks: readonly PulumiLock[],
  marker: RunMarker | undefined,
  world: LockWorld,
): LockVerdict {
  if (!locks.length) {
    return { cancel: false, why: 'the backend does not say who holds the lock (Pulumi Cloud does not)' };
  }
  if (!marker || marker.stack !== stack) {
    return { cancel: false, why: 'no layerlab run on this machine recorded taking this stack' };
  }
  if (marker.host !== world.host) return { cancel: false, why: `the recorded run was on ${marker.host}` };
  if (world.markerAlive(marker)) {
    return {
      cancel: false,
      why: `the layerlab run that took it (pid ${marker.pid}, since ${marker.since}) is still running`,
    };
  }
  for (const lock of locks) {
    if (lock.host !== world.host || lock.user !== world.user) {
      return { cancel: false, why: `it was taken by ${lock.user}@${lock.host}, not by this user on this machine` };
    }
    if (world.pidAlive(lock.pid)) return { cancel: false, why: `its process (pid ${lock.pid}) is still running here` };
    const at = Date.parse(lock.at);
    if (Number.isNaN(at) || at < Date.parse(marker.since) - CLOCK_SLACK_MS) {
      return { cancel: false, why: `it was taken at ${lock.at}, before the recorded run started (${marker.since})` };
    }
  }
  return {
    cancel: true,
    why: `left by layerlab pid ${marker.pid} (started ${marker.since}), which is gone, as is the lock's pid ${locks.map((l) => l.pid).join(', ')}`,
  };
}

export function describeLocks(locks: readonly PulumiLock[]): string {
  return locks.map((l) => `${l.user}@${l.host} (pid ${l.pid}) since ${l.at}`).join('; ');
}
