import { mkdir, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HostDefinition, LabDefinition } from '../../definition/schema.js';
import { LabError, errorMessage } from '../../errors.js';
import { removeLabStateDir } from '../../paths.js';
import { writeSecret } from '../../util/files.js';
import type { HostLog } from '../../util/log.js';
import { removeOwnedChild } from '../../util/owned-dir.js';
import { freeLoopbackPort } from '../../util/ports.js';
import { currentProcessIdentity, isOurProcess, processStartTicks, runLocal } from '../../util/proc.js';
import type { DownReport } from '../driver.js';
import type { Inventory, InventoryHost } from '../types.js';
import { isOurVirtiofsd, startVirtiofsd, stopVirtiofsd } from './hostshare.js';
import { type GuestImage, ensureGuestImage } from './image.js';
import { type Accel, DATA_DISK_DEVICE, kvmWorks, startVm, stopVm, vmFiles } from './qemu.js';
import { generateHostKeys, writeSeedDisk } from './seed.js';
import { type LocalHostState, LocalStateStore, labStateDir, readLocalState } from './state.js';

export interface LocalUpHooks {
  ephemeral?: boolean;
  log: HostLog;
  hostLog(host: string): HostLog;
  progress(message: string): void;
}

export async function chooseAccel(lab: LabDefinition, image: GuestImage): Promise<Accel> {
  const wanted = process.env.LAYERLAB_ACCEL ?? lab.target.local.accel;
  if (wanted === 'tcg') return 'tcg';
  const works = await kvmWorks(image);
  if (wanted === 'kvm' && !works)
    throw new LabError('accel: kvm was asked for, but a guest does not boot under KVM here');
  return works ? 'kvm' : 'tcg';
}

function inventoryHost(state: LocalHostState): InventoryHost {
  if (!state.port || !state.hostKey) throw new LabError('host has no port or host key recorded', { host: state.name });
  return {
    name: state.name,
    profile: state.profile,
    address: '127.0.0.1',
    port: state.port,
    user: 'root',
    privateKeyPath: vmFiles(state.dir).key,
    hostKey: state.hostKey,
    dataDisk: DATA_DISK_DEVICE,
    labels: { target: 'local', accel: state.accel ?? 'tcg' },
  };
}

/** A VM of this lab that is recorded and whose qemu is still running. */
export function isRunning(state: LocalHostState | undefined): state is LocalHostState & { pid: number } {
  return !!state?.pid && isOurProcess(state.pid, state.dir, state.pidStart);
}

/** Boots one host's VM; its pid is in state.json before this returns. */
async function bootHost(
  store: LocalStateStore,
  lab: LabDefinition,
  host: HostDefinition,
  image: GuestImage,
  accel: Accel,
  log: HostLog,
): Promise<LocalHostState> {
  const hostsDir = join(labStateDir(store.state.lab), 'hosts');
  const dir = join(hostsDir, host.name);
  await removeOwnedChild(hostsDir, host.name);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  store.update(host.name, { name: host.name, profile: host.profile, dir, prepared: false });
  const files = vmFiles(dir);
  const keys = generateHostKeys(`${store.state.lab}-${host.name}`);
  await writeSecret(files.key, keys.clientPrivate);
  await writeSeedDisk(dir, host.name, keys);
  const overlay = await runLocal(
    'qemu-img',
    ['create', '-q', '-f', 'qcow2', '-b', image.base, '-F', 'raw', files.root],
    {
      log,
    },
  );
  if (overlay.code !== 0) throw new LabError(`qemu-img create failed: ${overlay.stderr.trim()}`, { host: host.name });
  await writeFile(files.data, '');
  await truncate(files.data, host.diskGiB * 1024 ** 3);

  const hostshare = lab.mounts.includes('hostshare');
  if (hostshare) {
    const sharePid = await startVirtiofsd(dir);
    store.update(host.name, { sharePid, sharePidStart: processStartTicks(sharePid) });
  }
  let lastError: unknown;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freeLoopbackPort();
    try {
      const pid = await startVm({
        hostshare,
        name: `${store.state.lab}-${host.name}`,
        dir,
        image,
        cpus: host.cpus,
        memoryMiB: host.memoryMiB,
        port,
        accel,
      });
      log.line(`qemu started: pid ${pid}, ssh on 127.0.0.1:${port}, accel ${accel}`);
      // The start time is what later tells this qemu from a process that reuses its pid.
      const pidStart = processStartTicks(pid);
      return store.update(host.name, { pid, pidStart, port, accel, hostKey: keys.hostPublic.trim() });
    } catch (err) {
      // Another process may have taken the port between probe and bind.
      lastError = err;
      log.line(`qemu start attempt ${attempt} failed: ${errorMessage(err)}`);
    }
  }
  throw new LabError(`cannot start qemu: ${errorMessage(lastError)}`, { host: host.name, phase: 'boot' });
}

/**
 * Boots every host of the lab that is not already running (in parallel) and
 * returns the inventory. Hosts already up are kept as they are.
 */
export async function localUp(
  lab: LabDefinition,
  labFile: string,
  hooks: LocalUpHooks,
): Promise<{ inventory: Inventory; store: LocalStateStore }> {
  const store = LocalStateStore.openOrCreate(lab.name, labFile);
  if (hooks.ephemeral) store.state.owner = currentProcessIdentity();
  const image = await ensureGuestImage(hooks.log, () => hooks.progress('building the guest image (once; ~1-2 min)'));
  store.state.imageKey = image.key;
  store.save();
  const accel = await chooseAccel(lab, image);
  hooks.progress(
    `accelerator: ${accel}${accel === 'tcg' ? ' (no usable KVM: software emulation, slow but real)' : ''}`,
  );
  const results = await Promise.allSettled(
    lab.hosts.map(async (host) => {
      const existing = store.state.hosts[host.name];
      if (isRunning(existing) && existing.profile === host.profile) return existing;
      if (existing) await stopHost(existing, 0);
      const log = hooks.hostLog(host.name);
      const state = await bootHost(store, lab, host, image, accel, log).finally(() => log.close());
      hooks.progress(`${host.name}: booting (${accel}, ssh 127.0.0.1:${state.port})`);
      return state;
    }),
  );
  const failed = results.flatMap((r) => (r.status === 'rejected' ? [errorMessage(r.reason)] : []));
  if (failed.length) throw new LabError(failed.join('\n'), { phase: 'boot' });
  return {
    inventory: {
      target: 'local',
      hosts: lab.hosts.map((h) => inventoryHost(store.state.hosts[h.name] as LocalHostState)),
    },
    store,
  };
}

/** The inventory of a lab that is up, or an error saying to run `up`. */
export function localInventory(lab: LabDefinition): Inventory {
  const state = readLocalState(lab.name);
  const missing = lab.hosts.filter((h) => !isRunning(state?.hosts[h.name]) || !state?.hosts[h.name]?.prepared);
  if (!state || missing.length) {
    throw new LabError(
      `lab ${lab.name} is not up (${missing.map((h) => h.name).join(', ')} not running or not prepared); run \`layerlab up --lab <file>\` first`,
    );
  }
  return { target: 'local', hosts: lab.hosts.map((h) => inventoryHost(state.hosts[h.name] as LocalHostState)) };
}

/** Stops a host's VM, then its share daemon (which normally exits with the VM). */
async function stopHost(host: LocalHostState, graceMs: number): Promise<string> {
  const outcome = host.pid ? await stopVm(host.dir, host.pid, graceMs, host.pidStart) : 'not-running';
  if (host.sharePid) await stopVirtiofsd(host.dir, host.sharePid, host.sharePidStart);
  return outcome;
}

/**
 * Powers off every recorded VM, kills what does not stop, and deletes the
 * lab's whole state directory (overlays, data disks, keys, sockets, logs).
 */
export async function localDown(labName: string, graceMs = 20_000): Promise<DownReport[]> {
  const state = readLocalState(labName);
  const dir = labStateDir(labName);
  if (!state) {
    await removeLabStateDir(labName);
    return [];
  }
  // Every host is reported removed: one still running throws below, and nothing is reported.
  const reports = await Promise.all(
    Object.values(state.hosts).map(async (host) => ({
      host: host.name,
      removed: true,
      detail: await stopHost(host, graceMs),
    })),
  );
  const stillRunning = Object.values(state.hosts).filter(
    (h) => isRunning(h) || (h.sharePid && isOurVirtiofsd(h.dir, h.sharePid, h.sharePidStart)),
  );
  if (stillRunning.length) {
    throw new LabError(
      `could not stop ${stillRunning.map((h) => `${h.name} (pid ${h.pid})`).join(', ')}; state kept in ${dir}`,
    );
  }
  await removeLabStateDir(labName);
  return reports;
}
