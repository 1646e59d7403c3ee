import { existsSync, readFileSync, rmSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { InfraError, errorMessage } from '../../errors.js';
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

/** How long ago `at` was, as people read it ("3 min", "26 h"); empty when the time cannot be read. */
function age(at: string, now: number): string {
  const ms = now - Date.parse(at);
  if (Number.isNaN(ms) || ms < 0) return '';
  const min = Math.floor(ms / 60_000);
  if (min < 1) return ' (less than a minute ago)';
  return min < 120 ? ` (${min} min ago)` : ` (${Math.floor(min / 60)} h ago)`;
}

export function describeLocks(locks: readonly PulumiLock[], now = Date.now()): string {
  return locks.map((l) => `${l.user}@${l.host} (pid ${l.pid}) since ${l.at}${age(l.at, now)}`).join('; ');
}

/** What running a Pulumi operation as this layerlab process needs (fakes in tests). */
export interface StackLockDeps {
  /** How to name the backend in messages (its URL when known). */
  backend: string;
  progress(message: string): void;
  /** This lab's run record: read, written for this process, removed. */
  markers: { read(): RunMarker | undefined; write(): Promise<void>; clear(): void };
  world: LockWorld;
  now?: () => number;
}

/** One Pulumi operation that takes the stack's lock (`up`, `destroy`), as its caller reports it. */
export interface LockedOperation<T> {
  run(): Promise<T>;
  /** Releases the stack's lock (`pulumi cancel`). */
  cancel(): Promise<void>;
  /** What to run again once the lock is gone, formatted: "`layerlab down`". */
  again: string;
  /** A failure of the operation or of the cancel, as the error to throw. */
  failed(doing: 'run' | 'cancel', err: unknown): unknown;
}

/**
 * Runs `op` on stack `name` as this layerlab process: `up` and `down` (and
 * the sweeper) take a stack only through here. The run record is written
 * first, so a lock this run leaves if it is killed can be told from someone
 * else's; when the stack is already locked, the lock is cancelled and the
 * operation run once more only if judgeLocks proves it was left by a dead run
 * of ours. Any other lock is an InfraError naming who holds it, since when,
 * why it is left alone and the exact commands to run. Its age alone never
 * breaks it: a slow `pulumi up` or `destroy` holds its lock for as long as
 * AWS takes.
 */
export async function runUnderLock<T>(name: string, op: LockedOperation<T>, deps: StackLockDeps): Promise<T> {
  // Read before this run records itself: the record it replaces is what proves a stale lock ours.
  const previous = deps.markers.read();
  await deps.markers.write();
  try {
    return await op.run();
  } catch (err) {
    if (!isLockedError(err)) throw op.failed('run', err);
    const locks = parseLocks(errorMessage(err));
    const verdict = judgeLocks(name, locks, previous, deps.world);
    if (!verdict.cancel) {
      const now = deps.now?.() ?? Date.now();
      throw new InfraError(
        `Pulumi stack ${name} (backend ${deps.backend}) is locked${locks.length ? ` by ${describeLocks(locks, now)}` : ''}; ` +
          `layerlab leaves it alone: ${verdict.why}.\n` +
          `  Wait for that run to finish and run ${op.again} again; only if you are sure no process is using the stack,\n` +
          `  \`pulumi cancel --stack ${name}\` and then ${op.again}.`,
        {},
        { cause: err },
      );
    }
    deps.progress(`pulumi: stack ${name} is locked by a dead run of ours (${verdict.why}); cancelling that lock`);
    try {
      await op.cancel();
    } catch (e) {
      throw op.failed('cancel', e);
    }
  }
  try {
    return await op.run();
  } catch (err) {
    throw op.failed('run', err);
  }
}
