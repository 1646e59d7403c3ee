import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { chown, mkdir, rm, truncate, writeFile } from 'node:fs/promises';
import { LabError } from '../../errors.js';
import type { HostLog } from '../../util/log.js';
import { freeLoopbackPort } from '../../util/ports.js';
import { isAlive, isOurProcess, runLocal, stopOurProcess } from '../../util/proc.js';
import { sleep } from '../../util/time.js';
import { NFS_ANON_ID, ganeshaConfig, nfsFiles } from './nfs-share.js';

/**
 * Starting and stopping a VM's NFS server (mount kind hostshare-nfs; what it
 * serves and how is nfs-share.ts). The export is a file system of its own,
 * a sparse ext4 image mounted on the VM's nfs-share/: ganesha's VFS backend
 * opens files by kernel handle, and a guest (which is not trusted) that
 * forged one could otherwise reach any file of the file system holding
 * layerlab's state. A handle of another file system is refused.
 */

/** Whether `path` is a mount point now (/proc/self/mountinfo, field 5). */
export function isMountPoint(path: string): boolean {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .some((line) => line.split(' ')[4] === path.replaceAll(' ', '\\040'));
}

/**
 * Makes and mounts the export's file system: `sizeGiB` sparse, like the VM's
 * data disk. Its root belongs to NFS_ANON_ID, whom every request of the
 * guest acts as (All_Squash): the guest can make its folders there and no more.
 */
export async function mountExport(dir: string, sizeGiB: number, log: HostLog): Promise<void> {
  const f = nfsFiles(dir);
  await mkdir(f.folder, { recursive: true, mode: 0o755 });
  await writeFile(f.image, '', { mode: 0o600 });
  await truncate(f.image, sizeGiB * 1024 ** 3);
  const steps: [string, string[]][] = [
    ['mkfs.ext4', ['-q', '-F', '-m', '0', '-L', 'layerlab-nfs', f.image]],
    ['mount', ['-o', 'loop,nosuid,nodev', f.image, f.folder]],
  ];
  for (const [cmd, args] of steps) {
    const r = await runLocal(cmd, args, { log });
    if (r.code !== 0)
      throw new LabError(`${cmd} for the NFS export failed (exit ${r.code}): ${r.stderr.trim()}`, { phase: 'boot' });
  }
  await chown(f.folder, NFS_ANON_ID, NFS_ANON_ID);
}

/** Unmounts the export's file system (its loop device goes with it) and removes the image. */
export async function unmountExport(dir: string): Promise<void> {
  const f = nfsFiles(dir);
  if (isMountPoint(f.folder)) {
    const r = await runLocal('umount', [f.folder]);
    if (r.code !== 0)
      throw new LabError(`cannot unmount the NFS export ${f.folder}: ${r.stderr.trim()}; retry \`layerlab down\``);
  }
  await rm(f.image, { force: true });
}

/** Socket inodes a process holds (/proc/<pid>/fd links of the form socket:[inode]). */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m?.[1]) inodes.add(m[1]);
    }
  } catch {
    // gone, or fds closing while read: none then
  }
  return inodes;
}

/**
 * Whether `pid` itself listens on TCP `port` (not another process that took
 * the port between freeLoopbackPort and ganesha's bind, as a VM's hostfwd of
 * a host booting beside it could): a LISTEN row of /proc/net/tcp{,6} with
 * that port and one of the process's socket inodes.
 */
export function listensOn(pid: number, port: number): boolean {
  const inodes = socketInodes(pid);
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return ['/proc/net/tcp', '/proc/net/tcp6'].some((table) =>
    readFileSync(table, 'utf8')
      .split('\n')
      .slice(1)
      .map((l) => l.trim().split(/\s+/))
      .some((f) => f[1]?.endsWith(hexPort) && f[3] === '0A' && inodes.has(f[9] ?? '')),
  );
}

/** One start of ganesha on `port`: its pid once it listens there, or undefined (it exited, or did not listen). */
async function startOnPort(ganesha: string, dir: string, port: number): Promise<number | undefined> {
  const f = nfsFiles(dir);
  await writeFile(f.config, ganeshaConfig(dir, port), { mode: 0o600 });
  const out = openSync(f.log, 'a');
  // Foreground in its own session: recorded by pid and stopped by that pid, like the VM.
  const child = spawn(ganesha, ['-F', '-f', f.config, '-L', f.log, '-p', f.pidfile], {
    detached: true,
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  child.unref();
  const pid = child.pid;
  if (!pid) return undefined;
  for (let i = 0; i < 100 && isAlive(pid); i++) {
    if (listensOn(pid, port)) return pid;
    await sleep(100);
  }
  await stopNfsServer(dir, pid);
  return undefined;
}

/**
 * Starts the NFS server of a VM directory on its mounted export and returns
 * its pid and port once it listens, trying up to three free ports. Its
 * config path in its command line is what tells it from any other ganesha.
 * `ganesha` is the server's path (findNfsTools).
 */
export async function startNfsServer(dir: string, ganesha: string): Promise<{ pid: number; port: number }> {
  const f = nfsFiles(dir);
  await mkdir(f.recovery, { recursive: true, mode: 0o700 });
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freeLoopbackPort();
    const pid = await startOnPort(ganesha, dir, port);
    if (pid) return { pid, port };
  }
  throw new LabError(`nfs-ganesha did not listen on 127.0.0.1 (three ports tried); see ${f.log}`, { phase: 'boot' });
}

/** A recorded server that is still the one started for this VM (start time, when recorded, and config). */
export function isOurNfsServer(dir: string, pid: number, startedAt?: string): boolean {
  return isOurProcess(pid, nfsFiles(dir).config, startedAt);
}

/** Stops a recorded server — only while it is still the one started for this VM. */
export function stopNfsServer(dir: string, pid: number, startedAt?: string): Promise<void> {
  return stopOurProcess(pid, nfsFiles(dir).config, startedAt);
}
