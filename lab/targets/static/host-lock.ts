import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LabError, UserError } from '../../errors.js';
import { GUEST_DIR } from '../../paths.js';
import { withGuestLib } from '../../prepare/prepare.js';
import { type ExecOptions, type ExecResult, stderrTail } from '../../ssh/transport.js';
import { envCommand } from '../../util/shell.js';
import { type Controller, type ControllerRecord, describeHolder } from '../controller.js';
import type { InventoryHost } from '../types.js';

/**
 * The lock a static machine holds itself (guest/host-lock.sh): which
 * controller's lab drives it, from the first `up` or `run` until `down`.
 * It names the machine, not the checkout: a second controller (another
 * LAYERLAB_HOME, user or machine) is refused naming the first, while the
 * same controller comes back to its own lab as often as it likes.
 */

/** Where the lock is on a host (guest/lib.sh's LL_STATE). */
export const HOST_LOCK_PATH = '/var/lib/layerlab/host.lock';

/** guest/host-lock.sh's status for "held by someone else". */
const HELD = 3;

/** What the lock needs of a connection: SshConnection's exec, a fake in tests. */
export interface LockShell {
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
}

type Action = 'check' | 'take' | 'release';

/** The lock file's lines for `me`, taken by this process now. */
export function lockBody(me: Controller, since = new Date().toISOString(), pid = process.pid): string {
  return [`id=${me.id}`, `lab=${me.lab}`, `who=${me.who}`, `home=${me.home}`, `pid=${pid}`, `since=${since}`].join(
    '\n',
  );
}

/** The holder as a host reports it (key=value lines; untrusted, shown only through describeHolder). */
export function parseHolder(text: string): ControllerRecord & { unknown?: string } {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const i = line.indexOf('=');
    if (i > 0) out[line.slice(0, i)] ??= line.slice(i + 1);
  }
  return out;
}

/** Why `host` is not `me`'s to drive: who holds it, since when, and what to do. */
export function heldMessage(host: InventoryHost, stdout: string): string {
  const holder = parseHolder(stdout);
  const where = `host ${host.name} (${host.address}:${host.port})`;
  if (holder.unknown !== undefined || !holder.id) {
    return `${where}: ${HOST_LOCK_PATH} is there but layerlab did not write it; layerlab leaves it alone: find out who made it, and remove it yourself if nobody uses the machine`;
  }
  return (
    `${where} is in use by ${describeHolder(holder)}: run \`layerlab down\` for that lab from that controller; ` +
    `if that controller is gone for good, remove ${HOST_LOCK_PATH} on the host (see docs/troubleshooting.md)`
  );
}

/** Runs guest/host-lock.sh (sent on stdin: it works before anything is pushed); undefined, or why the host is held. */
async function lockAction(
  conn: LockShell,
  host: InventoryHost,
  me: Controller,
  action: Action,
): Promise<{ held?: string; stdout: string }> {
  const env: Record<string, string> = { LL_LOCK_ACTION: action, LL_LOCK_ID: me.id };
  if (action === 'take') env.LL_LOCK_BODY = lockBody(me);
  const script = withGuestLib(readFileSync(join(GUEST_DIR, 'host-lock.sh'), 'utf8'));
  const result = await conn.exec(envCommand(env, ['bash', '-s']), { stdin: script, timeoutMs: 60_000 });
  if (result.code === 0) return { stdout: result.stdout.trim() };
  if (result.code === HELD) return { held: heldMessage(host, result.stdout), stdout: result.stdout };
  const tail = stderrTail(result.stderr);
  throw new LabError(
    `${action} of the host lock ${HOST_LOCK_PATH} failed (exit ${result.code ?? result.signal})${tail ? `: ${tail}` : ''}`,
    { host: host.name },
  );
}

/** Read-only: why `me` may not drive `host`, or nothing (free, or `me`'s already). */
export async function hostLockProblem(
  conn: LockShell,
  host: InventoryHost,
  me: Controller,
): Promise<string | undefined> {
  return (await lockAction(conn, host, me, 'check')).held;
}

/** Takes the lock (or finds it `me`'s already: 'ours'); throws UserError naming the holder otherwise. */
export async function takeHostLock(conn: LockShell, host: InventoryHost, me: Controller): Promise<'taken' | 'ours'> {
  const { held, stdout } = await lockAction(conn, host, me, 'take');
  if (held) throw new UserError(held);
  return stdout === 'taken' ? 'taken' : 'ours';
}

/** Removes the lock if it is `me`'s; throws UserError (and leaves it) when it is someone else's. */
export async function releaseHostLock(conn: LockShell, host: InventoryHost, me: Controller): Promise<void> {
  const { held } = await lockAction(conn, host, me, 'release');
  if (held) throw new UserError(held);
}
