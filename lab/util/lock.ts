import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { UserError } from '../errors.js';
import { type ProcessIdentity, currentProcessIdentity, isProcessAlive } from './proc.js';

/**
 * Exclusive locks between layerlab processes: one file per locked thing,
 * holding who holds it (pid and process start time, so that a reused pid is
 * not mistaken for the holder), since when, and doing what. A lock whose
 * holder is gone is stale and taken over. Held locks are released when the
 * process exits, also through process.exit and Ctrl-C.
 */

export interface LockHolder extends ProcessIdentity {
  since: string;
  command: string;
}

export class LockHeldError extends UserError {
  constructor(
    readonly what: string,
    readonly holder: LockHolder,
  ) {
    super(
      `${what} is in use by pid ${holder.pid} since ${holder.since} (${holder.command}); wait for it to finish or stop that process, then try again`,
    );
    this.name = 'LockHeldError';
  }
}

export interface Lock {
  readonly path: string;
  release(): void;
}

const held = new Map<string, LockHolder>();

function readHolder(path: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockHolder>;
    if (typeof holder.pid !== 'number' || typeof holder.startTicks !== 'string') return undefined;
    return {
      pid: holder.pid,
      startTicks: holder.startTicks,
      since: holder.since ?? '?',
      command: holder.command ?? '?',
    };
  } catch {
    // Gone, or not a lock layerlab wrote (it never writes a torn one: see acquireLock).
    return undefined;
  }
}

/** The live holder of the lock at `path`, if any (a stale lock has none). */
export function lockHolder(path: string): LockHolder | undefined {
  const holder = readHolder(path);
  return holder && isProcessAlive(holder) ? holder : undefined;
}

/** Throws LockHeldError when another live process holds `path`; creates nothing. */
export function assertNotHeld(path: string, what: string): void {
  const holder = lockHolder(path);
  if (holder && !(holder.pid === process.pid && held.has(path))) throw new LockHeldError(what, holder);
}

function sameHolder(a: LockHolder | undefined, b: LockHolder | undefined): boolean {
  return !!a && !!b && a.pid === b.pid && a.startTicks === b.startTicks && a.since === b.since;
}

/**
 * Takes the lock at `path` for `what` (named in the message another process
 * gets), or throws LockHeldError. The lock file appears complete or not at
 * all: it is written beside, then hard-linked into place (fails if present).
 * `onStale` hears of a stale lock this call removed, with the holder it named.
 */
export function acquireLock(
  path: string,
  what: string,
  command = layerlabCommand(),
  onStale?: (holder: LockHolder) => void,
): Lock {
  if (held.has(path)) throw new Error(`lock ${path} is already held by this process`);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const me: LockHolder = { ...currentProcessIdentity(), since: new Date().toISOString(), command };
  const draft = `${path}.${process.pid}-${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, `${JSON.stringify(me)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(draft, path);
        held.set(path, me);
        installReleaseOnExit();
        return { path, release: () => releaseLock(path) };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const stale = readHolder(path);
      if (stale && isProcessAlive(stale)) throw new LockHeldError(what, stale);
      if (takeOverStale(path, stale) && stale) onStale?.(stale);
    }
    throw new Error(`cannot take the lock ${path}: it keeps changing hands`);
  } finally {
    unlinkSync(draft);
  }
}

/**
 * Moves a stale lock aside; true when this call removed it. Two processes
 * may both find the same stale lock; the second must not move aside the
 * lock the first has just taken: the moved file is checked and put back
 * when it is not the stale one.
 */
function takeOverStale(path: string, stale: LockHolder | undefined): boolean {
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false; // someone else moved it
    throw err;
  }
  const moved = readHolder(aside);
  if (stale === undefined ? moved === undefined : sameHolder(moved, stale)) {
    unlinkSync(aside);
    return true;
  }
  // A live lock taken in between: put it back (link fails only if yet another one is there).
  try {
    linkSync(aside, path);
  } finally {
    unlinkSync(aside);
  }
  return false;
}

/** Removes the lock file, if it is still ours. */
export function releaseLock(path: string): void {
  const mine = held.get(path);
  if (!mine) return;
  held.delete(path);
  if (!sameHolder(readHolder(path), mine)) return;
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

export function releaseAllLocks(): void {
  for (const path of [...held.keys()]) releaseLock(path);
}

/** Runs `fn` holding the lock at `path`; released however `fn` ends. */
export async function withLock<T>(path: string, what: string, fn: () => Promise<T>): Promise<T> {
  const lock = acquireLock(path, what);
  try {
    return await fn();
  } finally {
    lock.release();
  }
}

function layerlabCommand(): string {
  const args = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  return `layerlab ${args[0] ?? '?'}`;
}

let exitHookInstalled = false;

/**
 * On exit (also process.exit) the locks go. A signal with no handler of its
 * own would end the process without an exit event: while locks are held, such
 * signals release them first and then end the process as the signal would.
 */
function installReleaseOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', releaseAllLocks);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      if (process.listenerCount(signal) > 1) return; // the program handles it (and exits through 'exit')
      releaseAllLocks();
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}
