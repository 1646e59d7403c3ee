import { mkdir, readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_OS_RELEASE, type OsRelease, sharesOf } from '../../catalog.js';
import type { HostDefinition, LabDefinition } from '../../definition/schema.js';
import { LabError, errorMessage } from '../../errors.js';
import { removeLabStateDir } from '../../paths.js';
import { writeSecret } from '../../util/files.js';
import type { HostLog } from '../../util/log.js';
import { removeOwnedChild } from '../../util/owned-dir.js';
import { freeLoopbackPort } from '../../util/ports.js';
import { currentProcessIdentity, isOurProcess, processStartTicks, runLocal } from '../../util/proc.js';
import { formatDuration } from '../../util/time.js';
import type { DownReport } from '../driver.js';
import type { Inventory, InventoryHost } from '../types.js';
import { type RootBacking, flatcarImageKey, localLoginUser, rootBacking, writeFlatcarBoot } from './flatcar-boot.js';
import { isOurVirtiofsd, startVirtiofsd, stopVirtiofsd } from './hostshare.js';
import { type GuestImage, type KernelFlavour, ensureGuestImage } from './image.js';
import { availableMemoryMiB, memoryWarning } from './memory.js';
import {
  isMountPoint,
  isOurNfsServer,
  mountExport,
  startNfsServer,
  stopNfsServer,
  unmountExport,
} from './nfs-server.js';
import { NFS_PREREQUISITES, findNfsTools, nfsFiles } from './nfs-share.js';
import { makeNinepFolder } from './ninep-share.js';
import { type Accel, DATA_DISK_DEVICE, type VmSpec, kvmWorks, startVm, stopVm, vmFiles } from './qemu.js';
import { type HostKeys, generateHostKeys, writeSeedDisk } from './seed.js';
import { type LocalHostState, LocalStateStore, labStateDir, readLocalState } from './state.js';
import {
  type Template,
  type TemplateSpec,
  type WantedTemplate,
  findTemplate,
  removeTemplate,
  templateFiles,
  templateKey,
  templatesEnabled,
  touchTemplate,
} from './template-store.js';
import { copyTemplateDisks, incomingFrom, refreshGuest, resumeRestored, saveTemplate } from './template.js';

export interface LocalUpHooks {
  ephemeral?: boolean;
  /** Boot and prepare even when a template could be restored (`up --cold`). */
  cold?: boolean;
  /** Tool images prepare will load (name → tag): part of a template's key; none, no templates. */
  toolImageTags?: Record<string, string>;
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
    user: localLoginUser(state.profile),
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

/** A fresh folder for one host's VM with its keys and seed disk; recorded (unprepared) in state.json. */
async function newHostDir(store: LocalStateStore, host: HostDefinition): Promise<{ dir: string; keys: HostKeys }> {
  const hostsDir = join(labStateDir(store.state.lab), 'hosts');
  const dir = join(hostsDir, host.name);
  await removeOwnedChild(hostsDir, host.name);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  store.update(host.name, { name: host.name, profile: host.profile, os: host.os, dir, prepared: false });
  const keys = generateHostKeys(`${store.state.lab}-${host.name}`);
  await writeSecret(vmFiles(dir).key, keys.clientPrivate);
  // A host booted from a user's Flatcar image gets its keys through Ignition instead (flatcar-boot.ts).
  if (!host.image) await writeSeedDisk(dir, host.name, keys);
  return { dir, keys };
}

/** New overlay of the guest image (or the user's Flatcar image) and an empty data disk: what a cold boot starts from. */
export async function freshDisks(dir: string, host: HostDefinition, backing: RootBacking, log: HostLog): Promise<void> {
  const files = vmFiles(dir);
  const overlay = await runLocal(
    'qemu-img',
    ['create', '-q', '-f', 'qcow2', '-b', backing.file, '-F', backing.format, files.root],
    {
      log,
    },
  );
  if (overlay.code !== 0) throw new LabError(`qemu-img create failed: ${overlay.stderr.trim()}`, { host: host.name });
  await writeFile(files.data, '');
  await truncate(files.data, host.diskGiB * 1024 ** 3);
}

/** Starts the VM on a free loopback port (three tries: another process may take a port first); pid in state.json. */
async function startOnFreePort(
  store: LocalStateStore,
  host: HostDefinition,
  vm: Omit<VmSpec, 'port' | 'name' | 'cpus' | 'memoryMiB'>,
  log: HostLog,
): Promise<LocalHostState> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freeLoopbackPort();
    try {
      const spec = { ...vm, name: `${store.state.lab}-${host.name}`, cpus: host.cpus, memoryMiB: host.memoryMiB, port };
      const pid = await startVm(spec);
      log.line(`qemu started: pid ${pid}, ssh on 127.0.0.1:${port}, accel ${vm.accel}`);
      // The start time is what later tells this qemu from a process that reuses its pid.
      const pidStart = processStartTicks(pid);
      const imageKey = vm.flatcar ? flatcarImageKey(vm.flatcar.image) : vm.image.key;
      return store.update(host.name, { pid, pidStart, port, accel: vm.accel, imageKey });
    } catch (err) {
      lastError = err;
      log.line(`qemu start attempt ${attempt} failed: ${errorMessage(err)}`);
    }
  }
  throw new LabError(`cannot start qemu: ${errorMessage(lastError)}`, { host: host.name, phase: 'boot' });
}

/**
 * Mounts a host's NFS export and starts its server (mount kind
 * hostshare-nfs), each recorded before the next step, so that `down` undoes
 * whatever of it happened.
 */
async function startNfs(store: LocalStateStore, host: HostDefinition, dir: string, log: HostLog) {
  const tools = findNfsTools();
  if (!tools) throw new LabError(NFS_PREREQUISITES, { host: host.name, phase: 'boot' });
  store.update(host.name, { nfsExport: true });
  await mountExport(dir, host.diskGiB, log);
  const { pid, port } = await startNfsServer(dir, tools.ganesha);
  store.update(host.name, { nfsPid: pid, nfsPidStart: processStartTicks(pid), nfsPort: port });
  log.line(`nfs-ganesha started: pid ${pid}, on 127.0.0.1:${port}`);
  return { socat: tools.socat, port };
}

/** Boots one host's VM from the guest image; its pid is in state.json before this returns. */
async function bootHost(
  store: LocalStateStore,
  lab: LabDefinition,
  host: HostDefinition,
  image: GuestImage,
  accel: Accel,
  log: HostLog,
): Promise<LocalHostState> {
  const { dir, keys } = await newHostDir(store, host);
  await freshDisks(dir, host, rootBacking(host, image), log);
  const flatcar = host.image ? await writeFlatcarBoot(dir, host, keys) : undefined;
  const shares = sharesOf(lab.mounts);
  const hostshare = shares.has('virtiofs');
  if (hostshare) {
    const sharePid = await startVirtiofsd(dir, lab.target.local.virtiofsCache);
    store.update(host.name, { sharePid, sharePidStart: processStartTicks(sharePid) });
  }
  store.update(host.name, { shares: [...shares].sort() });
  const nfs = shares.has('nfs') ? await startNfs(store, host, dir, log) : undefined;
  const ninep = shares.has('9p');
  if (ninep) await makeNinepFolder(dir);
  const { tcgCacheMiB, diskAio } = lab.target.local;
  const vm = { dir, image, accel, tcgCacheMiB, diskAio, hostshare, nfs, ninep, flatcar };
  await startOnFreePort(store, host, vm, log);
  return store.update(host.name, { hostKey: keys.hostPublic.trim() });
}

/**
 * Restores one host from a template: copies of its disks, its memory loaded
 * instead of a boot, then a refresh (clock, randomness, this lab's keys and
 * hostname). The host is prepared when this returns.
 */
async function restoreHost(
  store: LocalStateStore,
  lab: LabDefinition,
  host: HostDefinition,
  image: GuestImage,
  accel: Accel,
  template: Template,
  log: HostLog,
): Promise<LocalHostState> {
  const { dir, keys } = await newHostDir(store, host);
  await copyTemplateDisks(template, dir, log);
  // tcgCacheMiB and diskAio are this lab's, not the template's: neither is guest state (templateKey).
  const { tcgCacheMiB, diskAio } = lab.target.local;
  const incoming = incomingFrom(template);
  const state = await startOnFreePort(store, host, { dir, image, accel, tcgCacheMiB, diskAio, incoming }, log);
  await resumeRestored(dir);
  const endpoint = {
    name: host.name,
    port: state.port as number,
    privateKey: await readFile(templateFiles(template.dir).key, 'utf8'),
    hostKey: template.meta.hostKey,
  };
  await refreshGuest(endpoint, { keys, hostname: host.name }, log, Date.now() + 120_000);
  touchTemplate(template);
  log.line(`restored from template ${template.key}`);
  return store.update(host.name, {
    hostKey: keys.hostPublic.trim(),
    prepared: true,
    toolImages: Object.keys(template.meta.spec.toolImageTags),
    template: template.key,
  });
}

/** The template a host of this lab would be kept as, or none (templates off, or a share that cannot migrate). */
async function templateFor(
  lab: LabDefinition,
  host: HostDefinition,
  image: GuestImage,
  accel: Accel,
  toolImageTags: Record<string, string> | undefined,
): Promise<WantedTemplate | undefined> {
  // Shared folders always boot: virtiofs (vhost-user-fs) devices block
  // migration in QEMU, and an NFS forward names a server of this lab only.
  if (!templatesEnabled() || !toolImageTags || sharesOf(lab.mounts).size) return undefined;
  // Templates are of layerlab's own guest image; a user's Flatcar image always boots.
  if (host.image) return undefined;
  const spec: TemplateSpec = {
    lab: lab.name,
    imageKey: image.key,
    accel,
    cpus: host.cpus,
    memoryMiB: host.memoryMiB,
    diskGiB: host.diskGiB,
    profile: host.profile,
    toolImageTags,
  };
  return { key: await templateKey(spec), spec };
}

/** Restores the host from its template when there is one (and `cold` is not asked); boots it otherwise. */
async function bringUpHost(
  store: LocalStateStore,
  lab: LabDefinition,
  host: HostDefinition,
  image: GuestImage,
  accel: Accel,
  hooks: LocalUpHooks,
  pending: Map<string, WantedTemplate>,
): Promise<LocalHostState> {
  const log = hooks.hostLog(host.name);
  try {
    const wanted = await templateFor(lab, host, image, accel, hooks.toolImageTags);
    const template = wanted && !hooks.cold ? findTemplate(wanted.key) : undefined;
    if (template) {
      try {
        const t0 = Date.now();
        const state = await restoreHost(store, lab, host, image, accel, template, log);
        hooks.progress(`${host.name}: restored from a prepared template in ${formatDuration(Date.now() - t0)}`);
        return state;
      } catch (err) {
        // A template that cannot be restored is of no use to anybody: remove it and boot.
        hooks.progress(
          `${host.name}: template ${template.key} did not restore (${errorMessage(err)}); booting instead`,
        );
        const failed = store.state.hosts[host.name];
        if (failed) await stopHost(failed, 0);
        await removeTemplate(template);
      }
    }
    if (wanted) pending.set(host.name, wanted);
    const state = await bootHost(store, lab, host, image, accel, log);
    hooks.progress(`${host.name}: booting (${accel}, ssh 127.0.0.1:${state.port})`);
    return state;
  } finally {
    await log.close();
  }
}

/**
 * The guest kernel of a lab's VMs: Debian's generic one when a mount kind
 * needs 9p, which the cloud kernel lacks. One kernel for the whole lab, so
 * its mount kinds and hosts are compared on the same kernel.
 */
export const kernelFlavourOf = (lab: LabDefinition): KernelFlavour =>
  sharesOf(lab.mounts).has('9p') ? 'generic' : 'cloud';

/** The guest image of every os release the lab's hosts run, built once each. */
async function guestImagesFor(lab: LabDefinition, hooks: LocalUpHooks): Promise<Map<OsRelease, GuestImage>> {
  const images = new Map<OsRelease, GuestImage>();
  const kernel = kernelFlavourOf(lab);
  for (const release of new Set(lab.hosts.map((h) => h.os))) {
    const what = `the ${release} guest image${kernel === 'cloud' ? '' : ` with the ${kernel} kernel`}`;
    const onBuild = () => hooks.progress(`building ${what} (once; ~1-2 min)`);
    images.set(release, await ensureGuestImage(hooks.log, onBuild, release, kernel));
  }
  return images;
}

/**
 * Boots (or restores from templates) every host of the lab that is not
 * already running, in parallel, and returns the inventory. Hosts already up
 * are kept as they are. `pending`: the booted hosts that are to become
 * templates once prepared (keepAsTemplate).
 */
export async function localUp(
  lab: LabDefinition,
  labFile: string,
  hooks: LocalUpHooks,
): Promise<{
  inventory: Inventory;
  store: LocalStateStore;
  pending: Map<string, WantedTemplate>;
}> {
  const store = LocalStateStore.openOrCreate(lab.name, labFile);
  if (hooks.ephemeral) store.state.owner = currentProcessIdentity();
  const images = await guestImagesFor(lab, hooks);
  store.save();
  // Any image's kernel tells whether KVM runs guests here.
  const accel = await chooseAccel(lab, images.values().next().value as GuestImage);
  hooks.progress(
    `accelerator: ${accel}${accel === 'tcg' ? ' (no usable KVM: software emulation, slow but real)' : ''}`,
  );
  const memory = memoryWarning(lab, accel, availableMemoryMiB());
  if (memory) hooks.progress(memory);
  const pending = new Map<string, WantedTemplate>();
  const results = await Promise.allSettled(
    lab.hosts.map(async (host) => {
      const existing = store.state.hosts[host.name];
      // The same host: profile, release, the very image (its kernel included) and share devices.
      const image = images.get(host.os) as GuestImage;
      const sameHost =
        existing?.profile === host.profile &&
        (existing.os ?? DEFAULT_OS_RELEASE) === host.os &&
        existing.imageKey === (host.image ? flatcarImageKey(host.image) : image.key) &&
        (existing.shares ?? []).join() === [...sharesOf(lab.mounts)].sort().join();
      if (isRunning(existing) && sameHost) return existing;
      if (existing) await stopHost(existing, 0);
      return bringUpHost(store, lab, host, image, accel, hooks, pending);
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
    pending,
  };
}

/**
 * Keeps a host that was just prepared as a template for later `up`s, then
 * gives it back the time its pause took. A template that cannot be saved
 * costs nothing but the next `up`'s speed: that is logged, not thrown.
 */
export async function keepAsTemplate(
  store: LocalStateStore,
  hostName: string,
  wanted: WantedTemplate,
  log: HostLog,
  replace = false,
): Promise<boolean> {
  const state = store.state.hosts[hostName];
  if (!state?.port || !state.hostKey) return false;
  let saved = false;
  try {
    saved = await saveTemplate(state.dir, wanted.key, wanted.spec, state.hostKey, log, replace);
  } catch (err) {
    log.line(`template ${wanted.key} not saved: ${errorMessage(err)}`);
  }
  if (saved) {
    const endpoint = {
      name: hostName,
      port: state.port,
      privateKey: await readFile(vmFiles(state.dir).key, 'utf8'),
      hostKey: state.hostKey,
    };
    await refreshGuest(endpoint, {}, log, Date.now() + 120_000);
  }
  return saved;
}

/**
 * Whether a host carries its profile and every tool image in `toolImages`
 * (state from before the images were recorded names none: prepare checks
 * again, cheaply, since the profile and each loaded image are skipped).
 */
export function preparedWith(host: LocalHostState | undefined, toolImages: readonly string[]): boolean {
  return !!host?.prepared && toolImages.every((name) => host.toolImages?.includes(name));
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

/**
 * Stops a host's VM, then its share servers (virtiofsd normally exits with
 * the VM; ganesha does not), then unmounts its NFS export.
 */
async function stopHost(host: LocalHostState, graceMs: number): Promise<string> {
  const outcome = host.pid ? await stopVm(host.dir, host.pid, graceMs, host.pidStart) : 'not-running';
  if (host.sharePid) await stopVirtiofsd(host.dir, host.sharePid, host.sharePidStart);
  if (host.nfsPid) await stopNfsServer(host.dir, host.nfsPid, host.nfsPidStart);
  if (host.nfsExport) await unmountExport(host.dir);
  return outcome;
}

/** What layerlab started for this host and is still there: its VM, a share server, the NFS export's mount. */
function leftOver(h: LocalHostState): string[] {
  return [
    ...(isRunning(h) ? [`qemu (pid ${h.pid})`] : []),
    ...(h.sharePid && isOurVirtiofsd(h.dir, h.sharePid, h.sharePidStart) ? [`virtiofsd (pid ${h.sharePid})`] : []),
    ...(h.nfsPid && isOurNfsServer(h.dir, h.nfsPid, h.nfsPidStart) ? [`nfs-ganesha (pid ${h.nfsPid})`] : []),
    ...(h.nfsExport && isMountPoint(nfsFiles(h.dir).folder) ? [`the NFS export mount ${nfsFiles(h.dir).folder}`] : []),
  ];
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
  const left = Object.values(state.hosts).flatMap((h) => leftOver(h).map((what) => `${h.name}: ${what}`));
  if (left.length) throw new LabError(`could not stop ${left.join(', ')}; state kept in ${dir}`);
  await removeLabStateDir(labName);
  return reports;
}
