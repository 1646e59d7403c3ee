import { spawn } from 'node:child_process';
import { constants, accessSync, closeSync, existsSync, openSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { LabError } from '../../errors.js';
import { isAlive, isOurProcess, stopOurProcess } from '../../util/proc.js';
import { sleep } from '../../util/time.js';

/**
 * The hostshare mount kind on the local target: a folder of this machine
 * shared into the VM over virtiofs (the analogue of boot2docker's vboxsf and
 * Docker for Mac's osxfs in seeds 000 and 002). virtiofsd serves the folder on
 * a vhost-user socket; QEMU maps guest RAM shared so the daemon can reach it.
 */

/** The tag the guest mounts (guest/lib.sh: ll_hostshare_mount). */
export const SHARE_TAG = 'llshare';

/** Debian 12 ships the C daemon with QEMU; newer systems the Rust one. */
const VIRTIOFSD_PATHS = ['/usr/lib/qemu/virtiofsd', '/usr/libexec/virtiofsd', '/usr/bin/virtiofsd'];

export function findVirtiofsd(): string | undefined {
  for (const path of VIRTIOFSD_PATHS) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // try the next place
    }
  }
  return undefined;
}

export const shareFiles = (dir: string) => ({
  folder: join(dir, 'share'),
  socket: join(dir, 'virtiofs.sock'),
  log: join(dir, 'virtiofsd.log'),
});

/** QEMU arguments that attach the share (guest RAM must be a shared memfd). */
export function shareQemuArgs(dir: string, memoryMiB: number): string[] {
  const f = shareFiles(dir);
  return [
    ...['-object', `memory-backend-memfd,id=llmem,size=${memoryMiB}M,share=on`, '-numa', 'node,memdev=llmem'],
    ...['-chardev', `socket,id=llshare,path=${f.socket.replaceAll(',', ',,')}`],
    ...['-device', `vhost-user-fs-pci,chardev=llshare,tag=${SHARE_TAG}`],
  ];
}

/**
 * Starts virtiofsd for a VM directory and returns its pid once the socket is
 * there. It runs in the foreground of its own session (we record its pid and
 * stop it by that pid, like the VM); it exits by itself when QEMU disconnects.
 */
export async function startVirtiofsd(dir: string, cache: 'none' | 'auto' | 'always' = 'auto'): Promise<number> {
  const daemon = findVirtiofsd();
  if (!daemon) {
    throw new LabError(
      `mount kind hostshare needs virtiofsd (looked in ${VIRTIOFSD_PATHS.join(', ')}); install qemu-system-common (Debian 12) or virtiofsd`,
      { phase: 'boot' },
    );
  }
  const f = shareFiles(dir);
  await mkdir(f.folder, { recursive: true, mode: 0o755 });
  const out = openSync(f.log, 'a');
  const child = spawn(daemon, [`--socket-path=${f.socket}`, '-o', `source=${f.folder}`, '-o', `cache=${cache}`, '-f'], {
    detached: true,
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  child.unref();
  const pid = child.pid;
  if (!pid) throw new LabError(`cannot start ${daemon}`, { phase: 'boot' });
  for (let i = 0; i < 100 && !existsSync(f.socket); i++) {
    if (!isAlive(pid)) break;
    await sleep(100);
  }
  if (!existsSync(f.socket)) {
    await stopVirtiofsd(dir, pid);
    throw new LabError(`virtiofsd did not create ${f.socket}; see ${f.log}`, { phase: 'boot' });
  }
  return pid;
}

/** A recorded virtiofsd that is still the one started for this VM (start time, when recorded, and socket). */
export function isOurVirtiofsd(dir: string, pid: number, startedAt?: string): boolean {
  return isOurProcess(pid, shareFiles(dir).socket, startedAt);
}

/** Stops a recorded virtiofsd — only while it is still the one started for this VM. */
export function stopVirtiofsd(dir: string, pid: number, startedAt?: string): Promise<void> {
  return stopOurProcess(pid, shareFiles(dir).socket, startedAt);
}
