import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LabError } from '../../errors.js';
import { runLocal, which } from '../../util/proc.js';

/**
 * The hostshare-nfs mount kind on the local target: a folder of this machine
 * exported over NFSv4 by nfs-ganesha (a userspace server from Debian), the
 * way the Vagrant CoreOS box of seed 002 shared its folder. One server per
 * VM, listening on 127.0.0.1 only, on a port of its own; the VM reaches it
 * through its user-mode network: a guestfwd rule turns the guest's
 * connections to NFS_GUEST_ADDRESS:2049 into socat processes that connect to
 * that port. restrict=on stays: forwarding rules are what it still allows.
 * This file: what the server needs and how it is configured; starting and
 * stopping it is nfs-server.ts.
 */

/** Where the guest finds the server (guest/lib.sh: LL_NFS_SOURCE), inside slirp's 10.0.2.0/24. */
export const NFS_GUEST_ADDRESS = '10.0.2.100';
/** The path of the export in the server's NFSv4 pseudo file system (guest/lib.sh: LL_NFS_SOURCE). */
export const NFS_EXPORT = '/share';

/** What the server needs on this machine: the commands, the VFS plugin (its own package), root. */
export const NFS_TOOLS = { ganesha: 'ganesha.nfsd', socat: 'socat' } as const;
const VFS_PLUGIN = 'libfsalvfs.so';
const PLUGIN_DIRS = ['/usr/lib/x86_64-linux-gnu/ganesha', '/usr/lib/aarch64-linux-gnu/ganesha', '/usr/lib64/ganesha'];
export const NFS_PACKAGES = 'nfs-ganesha nfs-ganesha-vfs socat';
export const NFS_PREREQUISITES = `mount kind hostshare-nfs needs nfs-ganesha with its VFS plugin and socat on this machine, and root (the server opens files by handle and mounts its export's file system): apt-get install ${NFS_PACKAGES}`;

export interface NfsTools {
  ganesha: string;
  socat: string;
}

export function findNfsTools(): NfsTools | undefined {
  const ganesha = which(NFS_TOOLS.ganesha);
  const socat = which(NFS_TOOLS.socat);
  return ganesha && socat ? { ganesha, socat } : undefined;
}

export function findVfsPlugin(): string | undefined {
  return PLUGIN_DIRS.map((d) => join(d, VFS_PLUGIN)).find((p) => existsSync(p));
}

/**
 * Program numbers another NFS server on this machine has registered with
 * rpcbind (NFS 100003, mountd 100005). ganesha removes those registrations
 * when it starts and again when it stops, whoever made them, and no option
 * of its config prevents that: with one registered, a lab must not start it.
 */
async function foreignNfsRegistrations(): Promise<string[]> {
  if (!which('rpcinfo')) return [];
  const r = await runLocal('rpcinfo', ['-p', '127.0.0.1'], { timeoutMs: 5000 });
  // No rpcbind running: nothing to disturb.
  if (r.code !== 0) return [];
  return [
    ...new Set(
      r.stdout
        .split('\n')
        .map((l) => l.trim().split(/\s+/))
        .filter((f) => f[0] === '100003' || f[0] === '100005')
        .map((f) => `${f[0] === '100003' ? 'nfs' : 'mountd'} on port ${f[3]}`),
    ),
  ];
}

/** What stops this machine from serving the NFS share, or nothing. */
export async function nfsShareMissing(): Promise<string | undefined> {
  if (!findNfsTools()) return NFS_PREREQUISITES;
  if (!findVfsPlugin())
    return `${NFS_PREREQUISITES} (no ${VFS_PLUGIN} in ${PLUGIN_DIRS.join(', ')}: install nfs-ganesha-vfs)`;
  if (process.getuid?.() !== 0) return `${NFS_PREREQUISITES}; this controller is not root`;
  const foreign = await foreignNfsRegistrations();
  if (foreign.length)
    return `mount kind hostshare-nfs: an NFS server on this machine is registered with rpcbind (${foreign.join(', ')}); nfs-ganesha would remove those registrations when it starts and stops. Stop that server for the run, or drop hostshare-nfs from mounts`;
  return undefined;
}

export const nfsFiles = (dir: string) => ({
  /** The exported folder: the mount point of the export's own file system. */
  folder: join(dir, 'nfs-share'),
  /** That file system (sparse ext4), so no file handle reaches past it. */
  image: join(dir, 'nfs-share.ext4'),
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
 * Whom every request of the guest acts as on this machine (uid and gid):
 * nobody/nogroup, which owns the export's root (mountExport) and so what
 * the guest creates there. The guest's root is not this machine's root.
 */
export const NFS_ANON_ID = 65534;

/**
 * One server's configuration: NFSv4.1 and 4.2 over TCP on 127.0.0.1:<port>
 * only (4.0 would let a client name an address for the server to call
 * back), no NLM, rquota or UDP, no grace period (nothing to recover: the
 * server is as new as the VM), no Kerberos; the VM's own folder (a file
 * system of its own, nosuid and nodev) exported read-write to privileged
 * source ports only (the VM's socat binds one; an unprivileged user of this
 * machine cannot). Owners travel as numbers: the guest runs no idmapd, and a
 * container's uids mean nothing to this machine.
 *
 * All_Squash, as a Vagrant NFS share on Linux is (all_squash with anonuid
 * and anongid): every uid of the guest, its root included, acts as
 * NFS_ANON_ID, so a guest that is not trusted is an unprivileged user here,
 * whatever the server lets a request reach. The guest still writes what the
 * scenarios write (its root creates, writes, renames, removes, sets modes
 * and times, as the owner), but cannot chown: a root `cp -a` into the share
 * fails on the ownership it tries to keep (db-import copies with
 * --no-preserve=ownership). Root_Squash alone would let a container's other
 * uids own files here that the guest's squashed root then could not remove.
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
  Minor_Versions = 1, 2;
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
  Squash = All_Squash;
  Anonymous_Uid = ${NFS_ANON_ID};
  Anonymous_Gid = ${NFS_ANON_ID};
  SecType = sys;
  PrivilegedPort = true;
  Protocols = 4;
  Transports = TCP;
  FSAL { Name = VFS; }
}
LOG { Default_Log_Level = WARN; }
`;
}

/**
 * The user-mode NIC's rule that carries the guest's NFS connections to the
 * server: QEMU starts the command for each connection, so the socat path
 * must be one plain word. `lowport` binds a privileged source port (QEMU runs
 * as root here: ganesha needs root), which the export requires; its comma is
 * doubled because the rule sits inside -nic's comma-separated options.
 */
export function nfsGuestfwd(socat: string, port: number): string {
  if (!/^[A-Za-z0-9_./-]+$/.test(socat)) throw new LabError(`socat path ${JSON.stringify(socat)} is not a plain path`);
  return `guestfwd=tcp:${NFS_GUEST_ADDRESS}:2049-cmd:${socat} STDIO TCP4:127.0.0.1:${port},,lowport`;
}
