import { join } from 'node:path';
import { sharesOf } from '../../catalog.js';
import { UserError } from '../../errors.js';
import { tailLines } from '../../util/files.js';
import { printable } from '../../util/safe-text.js';
import type { TargetDriver } from '../driver.js';
import { findVirtiofsd } from './hostshare.js';
import { keepAsTemplate, localDown, localInventory, localUp, preparedWith } from './local.js';
import { nfsShareMissing } from './nfs-share.js';
import { type LocalLabState, LocalStateStore, labStateDir, readLocalState } from './state.js';

/** Enough of the console for a panic's first lines or the last boot message before a hang. */
const CONSOLE_LINES = 25;

/** QEMU VMs on this machine (the embedded default). */
export const localDriver: TargetDriver = {
  kind: 'local',
  async preflight(lab) {
    const shares = sharesOf(lab.mounts);
    if (shares.has('virtiofs') && !findVirtiofsd()) {
      throw new UserError(
        'mount kind hostshare needs virtiofsd on this machine (Debian 12: apt-get install qemu-system-common; elsewhere: the virtiofsd package)',
      );
    }
    const nfsMissing = shares.has('nfs') ? await nfsShareMissing() : undefined;
    if (nfsMissing) throw new UserError(nfsMissing);
  },
  async provision(lab, labFile, _opts, hooks) {
    const { inventory, store, pending } = await localUp(lab, labFile, hooks);
    return {
      inventory,
      isPrepared: (host, toolImages) => preparedWith(store.state.hosts[host], toolImages),
      async markPrepared(host, toolImages) {
        store.update(host, { prepared: true, toolImages: [...toolImages] });
        const wanted = pending.get(host);
        if (!wanted) return;
        const log = hooks.hostLog(host);
        try {
          if (await keepAsTemplate(store, host, wanted, log, hooks.cold))
            hooks.progress(`${host}: kept as a template for later ups`);
        } finally {
          await log.close();
        }
      },
    };
  },
  async attach(lab) {
    // localInventory refuses hosts that are not running and prepared; a host
    // prepared before the lab file gained a scenario lacks its tool images,
    // and `run` loads them first.
    const inventory = localInventory(lab);
    const store = new LocalStateStore(readLocalState(lab.name) as LocalLabState);
    return {
      inventory,
      isPrepared: (host, toolImages) => preparedWith(store.state.hosts[host], toolImages),
      markPrepared: (host, toolImages) => void store.update(host, { toolImages: [...toolImages] }),
    };
  },
  async down(lab) {
    return localDown(lab.name);
  },
  async downByName(labName) {
    return localDown(labName);
  },
  downHint(lab) {
    // The state directory is found by the lab's name: no definition file needed.
    return `layerlab down --name ${lab.name}`;
  },
  bootTimeoutSec(lab) {
    return lab.target.local.bootTimeoutSec;
  },
  stateHint(lab) {
    return `${join(labStateDir(lab.name), 'hosts')}/<host>.log and <host>/console.log`;
  },
  bootFailureDetail(lab, host) {
    // Guest output reaches the terminal: no escape sequences.
    const tail = printable(tailLines(join(labStateDir(lab.name), 'hosts', host, 'console.log'), CONSOLE_LINES));
    if (!tail) return 'its console printed nothing';
    return `the last lines of its console:\n${tail.replace(/^/gm, '  | ')}`;
  },
};
