import { join } from 'node:path';
import type { LabDefinition } from '../../definition/schema.js';
import { UserError, errorMessage } from '../../errors.js';
import { REMOTE_ROOT, labStateDir } from '../../paths.js';
import { pushGuestFiles } from '../../prepare/prepare.js';
import { type ConnectHost, type HostConnection, connectHost } from '../../ssh/connect.js';
import { sessionOver } from '../../ssh/session.js';
import { HostLog } from '../../util/log.js';
import { envCommand } from '../../util/shell.js';
import { type Controller, thisController } from '../controller.js';
import { type TargetDriver, type TargetOptions, downByDefinitionHint, unprepared } from '../driver.js';
import type { Inventory, InventoryHost } from '../types.js';
import { releaseHostLock, takeHostLock } from './host-lock.js';
import { checkStaticInventory, labHosts, readStaticInventory } from './inventory.js';
import { refuseHostsNotTheLabs } from './ownership.js';

function inventoryFile(opts: TargetOptions): string {
  if (!opts.inventoryFile)
    throw new UserError('target static needs --inventory <hosts.yaml> (machines you already have)');
  return opts.inventoryFile;
}

async function loadInventory(opts: TargetOptions, lab: LabDefinition): Promise<Inventory> {
  return labHosts(await readStaticInventory(inventoryFile(opts)), lab);
}

function hostLog(lab: LabDefinition, host: InventoryHost): HostLog {
  return new HostLog(join(labStateDir(lab.name), 'static', `${host.name}.log`));
}

/** Runs `fn` over a connection to `host`, closed (and its log) however `fn` ends. */
async function withHost<T>(
  connect: ConnectHost,
  lab: LabDefinition,
  host: InventoryHost,
  fn: (conn: HostConnection) => Promise<T>,
): Promise<T> {
  const log = hostLog(lab, host);
  try {
    const conn = await connect(host, log, Date.now() + 60_000);
    try {
      return await fn(conn);
    } finally {
      conn.close();
    }
  } finally {
    await log.close();
  }
}

/**
 * Every host's lock for `me` (host-lock.ts), or none: when one host is held
 * by another controller (it took it since the check), the locks this call
 * took are released again and the refusal names the holder.
 */
async function lockHosts(connect: ConnectHost, file: string, inventory: Inventory, lab: LabDefinition, me: Controller) {
  const results = await Promise.allSettled(
    inventory.hosts.map((host) => withHost(connect, lab, host, (conn) => takeHostLock(conn, host, me))),
  );
  const failed = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (!failed.length) return;
  await Promise.allSettled(
    inventory.hosts.map((host, i) => {
      const r = results[i];
      return r?.status === 'fulfilled' && r.value === 'taken'
        ? withHost(connect, lab, host, (conn) => releaseHostLock(conn, host, me))
        : undefined;
    }),
  );
  // A host that did not answer is that failure, not a refusal.
  const broken = failed.find((err) => !(err instanceof UserError));
  if (broken !== undefined) throw broken;
  throw new UserError(
    `${file}: ${failed.length} host(s) are in use by another controller; nothing was changed on any host:\n  ${failed.map(errorMessage).join('\n  ')}`,
  );
}

/**
 * The lab's hosts, once every one of them is known to be the lab's to change
 * (exit 2 otherwise) and locked for this controller (the lock stays until `down`).
 */
async function hostsToPrepare(connect: ConnectHost, opts: TargetOptions, lab: LabDefinition): Promise<Inventory> {
  const inventory = await loadInventory(opts, lab);
  const me = thisController(lab.name);
  await refuseHostsNotTheLabs(inventoryFile(opts), inventory, lab, me, connect);
  await lockHosts(connect, inventoryFile(opts), inventory, lab, me);
  return inventory;
}

/**
 * Machines you already have. layerlab creates nothing here: `up` prepares them
 * (the profile is idempotent, images load once) once each is known to be the
 * lab's to change, and locks each for this controller on the machine itself;
 * `down` removes what layerlab put there (by label), puts back what the
 * profile set aside, releases the lock and leaves the machines running.
 * `connect` opens SSH connections (a fake host in tests).
 */
export function staticDriverWith(connect: ConnectHost): TargetDriver {
  return {
    kind: 'static',
    async preflight(lab, opts) {
      const file = inventoryFile(opts);
      await checkStaticInventory(file, await readStaticInventory(file), lab);
    },
    async provision(lab, _labFile, opts) {
      return unprepared(await hostsToPrepare(connect, opts, lab));
    },
    async attach(lab, opts) {
      // `run` prepares unprepared hosts too: the same check first.
      return unprepared(await hostsToPrepare(connect, opts, lab));
    },
    async down(lab, opts, progress) {
      const inventory = await loadInventory(opts, lab);
      const me = thisController(lab.name);
      return Promise.all(
        inventory.hosts.map(async (host) => {
          try {
            return await withHost(connect, lab, host, async (conn) => {
              // Another controller's lab on this machine is not ours to clean: refused, naming it.
              await takeHostLock(conn, host, me);
              // Push first so that cleanup works even on a host that was never prepared.
              await pushGuestFiles(sessionOver(conn));
              const cleanup = envCommand({ LL_LAB: lab.name }, ['bash', `${REMOTE_ROOT}/guest/cleanup.sh`]);
              const result = await conn.run(cleanup, { timeoutMs: 10 * 60_000 });
              for (const line of result.stdout.trim().split('\n')) if (line) progress(`${host.name}: ${line}`);
              // Only once cleaned: a failed cleanup keeps the machine this controller's to retry.
              await releaseHostLock(conn, host, me);
              return { host: host.name, removed: true, detail: 'cleaned (machine left running)' };
            });
          } catch (err) {
            return { host: host.name, removed: false, detail: `NOT cleaned: ${errorMessage(err)}` };
          }
        }),
      );
    },
    downHint(lab, labFile, opts) {
      return downByDefinitionHint(lab, labFile, opts.inventoryFile ? ` --inventory ${opts.inventoryFile}` : '');
    },
    bootTimeoutSec() {
      // The machines are running already; the deadline is the one cloud hosts get.
      return 20 * 60;
    },
    stateHint(lab) {
      return `${join(labStateDir(lab.name), 'hosts')}/<host>.log`;
    },
  };
}

export const staticDriver: TargetDriver = staticDriverWith(connectHost);
