import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Database, SqlJsStatic } from 'sql.js';
import { UserError } from '../errors.js';
import { type Lock, LockHeldError, acquireLock } from '../util/lock.js';
import { say } from '../util/log.js';

/**
 * One SQLite file held whole in memory (sql.js: SQLite compiled to
 * WebAssembly, no native addon to build at `npm ci`): read when opened,
 * written back whole after each change (writeFileAtomicSync in
 * util/files.ts: a crash leaves the old file or the new one, never half). Writers take a lock beside the file
 * and re-read it under the lock, so two processes reporting at once keep
 * each other's rows; readers take no lock.
 */

let loading: Promise<SqlJsStatic> | undefined;

/**
 * SQLite, loaded on first use (its WebAssembly takes a moment to compile:
 * commands that never open a history do not pay for it), from sql.js's own
 * package folder: nothing is fetched.
 */
export function sqlite(): Promise<SqlJsStatic> {
  loading ??= (async () => {
    const { default: initSqlJs } = await import('sql.js');
    const wasm = readFileSync(createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm'));
    return initSqlJs({ wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) });
  })();
  return loading;
}

/**
 * Refuses a file beside which an older layerlab (better-sqlite3, WAL
 * journal) left a `-wal` file: it was stopped while writing, and rows it
 * committed are only in that file. Reading the main file alone would lose
 * them, and writing it would make the `-wal` file wrong for it.
 */
function refuseWal(path: string): void {
  const wal = `${path}-wal`;
  if (!existsSync(wal)) return;
  throw new UserError(
    `${wal} exists: an older layerlab was stopped while writing ${path}, and rows it wrote are only in that file. ` +
      `Fold them into the history once with \`sqlite3 ${path} 'PRAGMA wal_checkpoint(TRUNCATE)'\` ` +
      `(the sqlite3 package; ${wal} is gone afterwards), then run this again.`,
  );
}

/**
 * The database in the file at `path` (an empty one when there is no file),
 * in rollback-journal mode: a file an older layerlab wrote in WAL mode is
 * written back in rollback mode, which sql.js and any SQLite open alone.
 * Foreign keys are enforced, as better-sqlite3 did.
 */
export function readDatabase(sql: SqlJsStatic, path: string): Database {
  refuseWal(path);
  const db = existsSync(path) ? new sql.Database(readFileSync(path)) : new sql.Database();
  try {
    db.exec('PRAGMA journal_mode = DELETE; PRAGMA foreign_keys = ON');
  } catch (err) {
    db.close();
    throw new UserError(`${path} is not a SQLite database SQLite can read (${(err as Error).message}); move it aside`);
  }
  return db;
}

/** What identifies the file's current content (its inode, size and change time), or undefined when there is none. */
export function fileStamp(path: string): string | undefined {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** How long a writer waits for another one to finish before giving up. */
const LOCK_WAIT_MS = 60_000;
const LOCK_POLL_MS = 50;

/**
 * Runs `fn` holding `<path>.lock`, waiting (up to a minute) while another
 * live process holds it; a lock left by a process that is gone is taken over,
 * with a message. `fn` runs synchronously, so one process never holds it twice.
 */
export function withWriteLock<T>(path: string, fn: () => T, waitMs = LOCK_WAIT_MS): T {
  const lockPath = `${path}.lock`;
  const what = `the history ${path}`;
  const deadline = Date.now() + waitMs;
  let told = false;
  for (;;) {
    let lock: Lock;
    try {
      lock = acquireLock(lockPath, what, undefined, (stale) =>
        say(`${lockPath} was left by pid ${stale.pid} (${stale.command}), which is gone: taking it over`),
      );
    } catch (err) {
      if (!(err instanceof LockHeldError) || Date.now() >= deadline) throw err;
      if (!told) say(`waiting for pid ${err.holder.pid} (${err.holder.command}) to finish writing ${path}`);
      told = true;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, LOCK_POLL_MS);
      continue;
    }
    try {
      return fn();
    } finally {
      lock.release();
    }
  }
}

/** Runs `fn` in one transaction: all of its changes, or (when it throws) none. */
export function inTransaction(db: Database, fn: () => void): void {
  db.exec('BEGIN');
  try {
    fn();
    db.exec('COMMIT');
  } catch (err) {
    // SQLite may have rolled back already (a full disk does); the first error is the one to tell.
    try {
      db.exec('ROLLBACK');
    } catch {}
    throw err;
  }
}
