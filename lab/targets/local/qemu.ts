import { spawn } from 'node:child_process';
import { constants, accessSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { cacheRoot } from '../../paths.js';
import { isAlive, isOurProcess } from '../../util/proc.js';
import { sleep } from '../../util/time.js';
import { type FlatcarBoot, flatcarQemuArgs } from './flatcar-boot.js';
import { shareQemuArgs } from './hostshare.js';
import type { GuestImage } from './image.js';
import { nfsGuestfwd } from './nfs-share.js';
import { ninepQemuArgs } from './ninep-share.js';

export type Accel = 'kvm' | 'tcg';
/** QEMU's `aio=` for the VMs' disks (lab file: target.local.diskAio). */
export type DiskAio = 'native' | 'threads' | 'io_uring';

export const QEMU = 'qemu-system-x86_64';
/** Serial of the data disk; the guest sees it as /dev/disk/by-id/virtio-lldata. */
export const DATA_DISK_DEVICE = '/dev/disk/by-id/virtio-lldata';

let kvmProbe: Promise<boolean> | undefined;

/** The probe's answer holds until the machine reboots (boot_id) or the kernel image changes. */
function probeCachePath(image: GuestImage): string {
  return join(cacheRoot(), `kvm-probe-${image.key}.json`);
}

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return 'unknown';
  }
}

/**
 * /dev/kvm can exist, open and report "kvm support: enabled" while a guest
 * still never runs (seen on nested machines). So the probe boots the real
 * kernel under KVM and waits for its first console line; the answer is cached
 * for this boot of the machine.
 */
export function kvmWorks(image: GuestImage, timeoutMs = 8_000): Promise<boolean> {
  kvmProbe ??= (async () => {
    const cache = probeCachePath(image);
    try {
      const cached = JSON.parse(readFileSync(cache, 'utf8')) as { bootId: string; works: boolean };
      if (cached.bootId === bootId()) return cached.works;
    } catch {
      // no answer cached yet
    }
    const works = await bootProbe(image, timeoutMs);
    writeFileSync(cache, JSON.stringify({ bootId: bootId(), works }));
    return works;
  })();
  return kvmProbe;
}

function bootProbe(image: GuestImage, timeoutMs: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    try {
      accessSync('/dev/kvm', constants.R_OK | constants.W_OK);
    } catch {
      resolve(false);
      return;
    }
    const child = spawn(
      QEMU,
      [
        ...['-machine', 'pc', '-accel', 'kvm', '-cpu', 'host', '-m', '256', '-nodefaults', '-display', 'none'],
        ...['-no-reboot', '-serial', 'stdio', '-kernel', image.kernel, '-append', 'console=ttyS0 panic=-1'],
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    let out = '';
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('Linux version')) finish(true);
    });
    child.on('error', () => finish(false));
    child.on('exit', () => finish(out.includes('Linux version')));
  });
}

export interface VmSpec {
  name: string;
  dir: string;
  image: GuestImage;
  cpus: number;
  memoryMiB: number;
  port: number;
  accel: Accel;
  /** TCG's translated-code cache in MiB (tb-size); unused under KVM. */
  tcgCacheMiB: number;
  /** How QEMU submits the root and data disks' I/O (`aio=`), always with cache=none. */
  diskAio: DiskAio;
  /** Attach the virtiofs share (mount kind hostshare); its daemon must be running. */
  hostshare?: boolean;
  /** Attach the 9p folder (mount kind hostshare-9p; ninep-share.ts). */
  ninep?: boolean;
  /** Forward the guest's NFS connections (mount kind hostshare-nfs) to this server (nfs-share.ts). */
  nfs?: { socat: string; port: number };
  /** Load a saved VM from this migration source (`-incoming`) instead of booting. */
  incoming?: string;
  /**
   * Boot a user's Flatcar image (flatcar-boot.ts): its own bootloader from the
   * root overlay, Ignition through fw_cfg instead of the seed disk; `image` is then unused.
   */
  flatcar?: FlatcarBoot;
}

export const vmFiles = (dir: string) => ({
  root: join(dir, 'root.qcow2'),
  data: join(dir, 'data.raw'),
  seed: join(dir, 'seed.tar'),
  pidfile: join(dir, 'qemu.pid'),
  monitor: join(dir, 'monitor.sock'),
  qmp: join(dir, 'qmp.sock'),
  console: join(dir, 'console.log'),
  key: join(dir, 'id_ed25519'),
});

/**
 * The Debian guests' kernel command line. panic=1: a guest kernel that
 * panics reboots after a second (QEMU resets the machine; the seed unit runs
 * on every boot), so a boot that panics gets a second one before the SSH
 * deadline instead of hanging until it. Under TCG with several vCPUs a guest
 * kernel can trip over its own code patching: a Debian 13 VM panicked 35 s
 * into its boot with "Oops: int3" in enqueue_task_fair (stacks e2e at a33b84d).
 */
export const GUEST_KERNEL_CMDLINE = 'root=LABEL=layerlab-root rw console=ttyS0 quiet panic=1';

export function qemuArgs(spec: VmSpec): string[] {
  const f = vmFiles(spec.dir);
  const accel =
    spec.accel === 'kvm'
      ? ['-accel', 'kvm', '-cpu', 'host']
      : // -cpu max is ~20% slower under TCG; thread=multi uses every host core.
        ['-accel', `tcg,thread=multi,tb-size=${spec.tcgCacheMiB}`, '-cpu', 'qemu64'];
  const disk = (id: string, file: string, format: string, extra: string, device = '') => [
    '-drive',
    `file=${file.replaceAll(',', ',,')},if=none,id=${id},format=${format}${extra}`,
    '-device',
    `virtio-blk-pci,drive=${id}${device}`,
  ];
  // cache=none (no host page cache in the way) goes with each of the three aio modes.
  const direct = `,cache=none,aio=${spec.diskAio}`;
  // A Flatcar image boots through the firmware from its root disk (its GRUB picks /usr A or B).
  const kernel = spec.flatcar
    ? []
    : ['-kernel', spec.image.kernel, '-initrd', spec.image.initrd, '-append', GUEST_KERNEL_CMDLINE];
  return [
    ...['-name', `layerlab-${spec.name}`, '-machine', 'pc', ...accel],
    ...['-smp', String(spec.cpus), '-m', String(spec.memoryMiB)],
    ...kernel,
    // The root disk holds /var/lib/docker on devicemapper hosts (volumes, bind
    // sources): no host page cache there either, or those trials would measure RAM.
    ...disk('root', f.root, 'qcow2', direct, spec.flatcar ? ',bootindex=0' : ''),
    // The data disk is what the benchmark measures: no host page cache in the way.
    ...disk('data', f.data, 'raw', direct, ',serial=lldata'),
    ...(spec.flatcar ? flatcarQemuArgs(spec.flatcar) : disk('seed', f.seed, 'raw', ',readonly=on', ',serial=llseed')),
    ...(spec.hostshare ? shareQemuArgs(spec.dir, spec.memoryMiB) : []),
    ...(spec.ninep ? ninepQemuArgs(spec.dir) : []),
    // restrict=on: the guest reaches nothing but the SSH forward on loopback
    // and, for hostshare-nfs, the NFS server's forward.
    ...[
      '-nic',
      [
        'user,model=virtio-net-pci,restrict=on',
        `hostfwd=tcp:127.0.0.1:${spec.port}-:22`,
        ...(spec.nfs ? [nfsGuestfwd(spec.nfs.socat, spec.nfs.port)] : []),
      ].join(','),
    ],
    ...[
      '-serial',
      `file:${f.console.replaceAll(',', ',,')}`,
      '-monitor',
      `unix:${f.monitor.replaceAll(',', ',,')},server=on,wait=off`,
      // QMP: how templates are saved and restored (template.ts).
      '-qmp',
      `unix:${f.qmp.replaceAll(',', ',,')},server=on,wait=off`,
    ],
    ...(spec.incoming ? ['-incoming', spec.incoming] : []),
    ...['-pidfile', f.pidfile, '-daemonize', '-display', 'none', '-nodefaults'],
  ];
}

/** Starts a daemonized VM and returns its pid (from QEMU's pidfile). */
export async function startVm(spec: VmSpec): Promise<number> {
  const child = spawn(QEMU, qemuArgs(spec), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) throw new Error(`qemu exited with ${code}: ${stderr.trim()}`);
  return Number(readFileSync(vmFiles(spec.dir).pidfile, 'utf8').trim());
}

/** Sends one command to QEMU's monitor; resolves whether it got there (false: no socket, or it refused us). */
export function sendMonitorCommand(socketPath: string, command: string): Promise<boolean> {
  return new Promise((resolve) => {
    let sent = false;
    const socket = createConnection(socketPath);
    // Drain the monitor's banner and replies: a paused socket never sees the
    // peer's FIN, and with nothing else pending Node would exit mid-await.
    socket.resume();
    socket.on('connect', () => {
      socket.write(`${command}\n`);
      sent = true;
      setTimeout(() => socket.end(), 200);
    });
    socket.on('close', () => resolve(sent));
    socket.on('error', () => resolve(sent));
  });
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await sleep(200);
  }
  return !isAlive(pid);
}

/**
 * Power off, then kill — only the recorded pid, and only while it is still
 * the process started then (`startedAt`, when recorded) and its arguments
 * name this VM's directory (a recycled pid is left alone).
 */
export async function stopVm(
  dir: string,
  pid: number,
  graceMs: number,
  startedAt?: string,
): Promise<'not-running' | 'powered-off' | 'killed'> {
  const ours = () => isOurProcess(pid, dir, startedAt);
  if (!ours()) return 'not-running';
  // No monitor to ask (its socket is gone): nothing was told to power off, so no grace to wait out.
  if (graceMs > 0 && (await sendMonitorCommand(vmFiles(dir).monitor, 'system_powerdown'))) {
    if (await waitForExit(pid, graceMs)) return 'powered-off';
  }
  if (ours()) process.kill(pid, 'SIGTERM');
  if (await waitForExit(pid, 5000)) return 'killed';
  if (ours()) process.kill(pid, 'SIGKILL');
  await waitForExit(pid, 5000);
  return 'killed';
}
