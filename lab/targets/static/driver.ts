import { join } from 'node:path';
import type { LabDefinition } from '../../definition/schema.js';
import { UserError, errorMessage } from '../../errors.js';
import { REMOTE_ROOT, labStateDir } from '../../paths.js';
import { pushGuestFiles } from '../../prepare/prepare.js';
import { connectHost } from '../../ssh/connect.js';
import { sessionOver } from '../../ssh/session.js';
import { HostLog } from '../../util/log.js';
import { envCommand } from '../../util/shell.js';
import { type TargetDriver, type TargetOptions, downByDefinitionHint, unprepared } from '../driver.js';
import type { Inventory } from '../types.js';
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

/** The lab's hosts, once every one of them is known to be the lab's to change (exit 2 otherwise). */
async function hostsToPrepare(opts: TargetOptions, lab: LabDefinition): Promise<Inventory> {
  const inventory = await loadInventory(opts, lab);
  await refuseHostsNotTheLabs(inventoryFile(opts), inventory, lab);
  return inventory;
}

/**
 * Machines you already have. layerlab creates nothing here: `up` prepares them
 * (the profile is idempotent, images load once) once each is known to be the
 * lab's to change; `down` removes what layerlab put there (by label), puts
 * back what the profile set aside, and leaves the machines running.
 */
export const staticDriver: TargetDriver = {
  kind: 'static',
  async preflight(lab, opts) {
    const file = inventoryFile(opts);
    await checkStaticInventory(file, await readStaticInventory(file), lab);
  },
  async provision(lab, _labFile, opts) {
    return unprepared(await hostsToPrepare(opts, lab));
  },
  async attach(lab, opts) {
    // `run` prepares unprepared hosts too: the same check first.
    return unprepared(await hostsToPrepare(opts, lab));
  },
  async down(lab, opts, progress) {
    const inventory = await loadInventory(opts, lab);
    return Promise.all(
      inventory.hosts.map(async (host) => {
        const log = new HostLog(join(labStateDir(lab.name), 'static', `${host.name}.log`));
        try {
          const conn = await connectHost(host, log, Date.now() + 60_000);
          try {
            // Push first so that cleanup works even on a host that was never prepared.
            await pushGuestFiles(sessionOver(conn));
            const cleanup = envCommand({ LL_LAB: lab.name }, ['bash', `${REMOTE_ROOT}/guest/cleanup.sh`]);
            const result = await conn.run(cleanup, { timeoutMs: 10 * 60_000 });
            for (const line of result.stdout.trim().split('\n')) if (line) progress(`${host.name}: ${line}`);
            return { host: host.name, removed: true, detail: 'cleaned (machine left running)' };
          } finally {
            conn.close();
          }
        } catch (err) {
          return { host: host.name, removed: false, detail: `NOT cleaned: ${errorMessage(err)}` };
        } finally {
          await log.close();
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
