import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { LabError } from '../../errors.js';
import { freeLoopbackPort } from '../../util/ports.js';
import { isAlive, isOurProcess, stopOurProcess, which } from '../../util/proc.js';
import { sleep } from '../../util/time.js';

/**
 * The hostshare-nfs mount kind on the local target: a folder of this machine
 * exported over NFSv4 by nfs-ganesha (a userspace server from Debian), the
 * way the Vagrant CoreOS box of seed 002 shared its folder. One server per
 * VM, listening on 127.0.0.1 only, on a port of its own; the VM reaches it
 * through its user-mode network: a guestfwd rule turns the guest's
 * connections to NFS_GUEST_ADDRESS:2049 into socat processes that connect to
 * that port. restrict=on stays: forwarding rules are what it still allows.
 * NFSv4 needs no portmapper, mountd or lock manager, so nothing else listens.
 */

/** Where the guest finds the server (guest/lib.sh: ll_nfs_mount), inside slirp's 10.0.2.0/24. */
export const NFS_GUEST_ADDRESS = '10.0.2.100';
/** The path of the export in the server's NFSv4 pseudo file system. */
export const NFS_EXPORT = '/share';

export const NFS_PREREQUISITES =
  'mount kind hostshare-nfs needs nfs-ganesha and socat on this machine, and root (the server opens files by handle): apt-get install nfs-ganesha nfs-ganesha-vfs socat';

export interface NfsTools {
  ganesha: string;
  socat: string;
}

export function findNfsTools(): NfsTools | undefined {
  const ganesha = which('ganesha.nfsd');
  const socat = which('socat');
  return ganesha && socat ? { ganesha, socat } : undefined;
}

/** What is missing on this machine for the NFS share, or nothing. */
export function nfsShareMissing(): string | undefined {
  if (!findNfsTools()) return NFS_PREREQUISITES;
  if (process.getuid?.() !== 0) return `${NFS_PREREQUISITES}; this controller is not root`;
  return undefined;
}

export const nfsFiles = (dir: string) => ({
  folder: join(dir, 'nfs-share'),
  config: join(dir, 'ganesha.conf'),
  log: join(dir, 'ganesha.log'),
  pidfile: join(dir, 'ganesha.pid'),
  recovery: join(dir, 'ganesha-recovery'),
});

/** A path as a quoted string of ganesha's config language, which has no escapes. */
function configPath(path: string): string {
  if (/["\\\n\r]/.test(path))
    throw new LabError(`cannot use ${JSON.stringify(path)} in a ganesha config (quote or newline)`);
  return `"${path}"`;
}

/**
 * One server's configuration: NFSv4 over TCP on 127.0.0.1:<port> only, no
 * NLM, rquota or UDP, no grace period (nothing to recover: the server is as
 * new as the VM), no Kerberos; the folder exported read-write without root
 * squashing, as a Vagrant NFS share is. Owners travel as numbers: the guest
 * runs no idmapd, and a container's uids mean nothing to this machine.
 */
export function ganeshaConfig(dir: string, port: number): string {
  const f = nfsFiles(dir);
  return `NFS_CORE_PARAM {
  NFS_Port = ${port};
  Bind_addr = 127.0.0.1;
  Protocols = 4;
  Enable_NLM = false;
  Enable_RQUOTA = false;
  Enable_UDP = false;
}
NFS_KRB5 { Active_krb5 = false; }
NFSV4 {
  Graceless = true;
  Only_Numeric_Owners = true;
  RecoveryBackend = fs;
  RecoveryRoot = ${configPath(f.recovery)};
}
EXPORT {
  Export_Id = 1;
  Path = ${configPath(f.folder)};
  Pseudo = ${NFS_EXPORT};
  Access_Type = RW;
  Squash = No_Root_Squash;
  SecType = sys;
  Protocols = 4;
  Transports = TCP;
  FSAL { Name = VFS; }
}
LOG { Default_Log_Level = WARN; }
`;
}

/**
 * The user-mode NIC's rule that carries the guest's NFS connections to the
 * server (QEMU runs the command through /bin/sh for each connection, so the
 * socat path must be one plain word).
 */
export function nfsGuestfwd(socat: string, port: number): string {
  if (!/^[A-Za-z0-9_./-]+$/.test(socat)) throw new LabError(`socat path ${JSON.stringify(socat)} is not a plain path`);
  return `guestfwd=tcp:${NFS_GUEST_ADDRESS}:2049-cmd:${socat} STDIO TCP4:127.0.0.1:${port}`;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts the NFS server of a VM directory and returns its pid and port once
 * it accepts connections. It runs in the foreground of its own session
 * (recorded by pid and stopped by that pid, like the VM); its config path in
 * its command line is what tells it from any other ganesha.
 */
export async function startNfsServer(dir: string): Promise<{ pid: number; port: number }> {
  const tools = findNfsTools();
  if (!tools) throw new LabError(NFS_PREREQUISITES, { phase: 'boot' });
  const f = nfsFiles(dir);
  await mkdir(f.folder, { recursive: true, mode: 0o755 });
  await mkdir(f.recovery, { recursive: true, mode: 0o700 });
  const port = await freeLoopbackPort();
  await writeFile(f.config, ganeshaConfig(dir, port), { mode: 0o600 });
  const out = openSync(f.log, 'a');
  const child = spawn(tools.ganesha, ['-F', '-f', f.config, '-L', f.log, '-p', f.pidfile], {
    detached: true,
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  child.unref();
  const pid = child.pid;
  if (!pid) throw new LabError(`cannot start ${tools.ganesha}`, { phase: 'boot' });
  for (let i = 0; i < 100; i++) {
    if (!isAlive(pid)) break;
    if (await accepts(port)) return { pid, port };
    await sleep(100);
  }
  await stopNfsServer(dir, pid);
  throw new LabError(`nfs-ganesha did not listen on 127.0.0.1:${port}; see ${f.log}`, { phase: 'boot' });
}

/** A recorded server that is still the one started for this VM (start time, when recorded, and config). */
export function isOurNfsServer(dir: string, pid: number, startedAt?: string): boolean {
  return isOurProcess(pid, nfsFiles(dir).config, startedAt);
}

/** Stops a recorded server — only while it is still the one started for this VM. */
export function stopNfsServer(dir: string, pid: number, startedAt?: string): Promise<void> {
  return stopOurProcess(pid, nfsFiles(dir).config, startedAt);
}
