import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, openSync } from 'node:fs';
import { chmod, copyFile, mkdir, rename, rm } from 'node:fs/promises';
import { type Server, createServer } from 'node:net';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { LabError, errorMessage } from '../../errors.js';
import { SshConnection } from '../../ssh/transport.js';
import type { HostLog } from '../../util/log.js';
import { runLocal } from '../../util/proc.js';
import { shellQuote } from '../../util/shell.js';
import { sleep } from '../../util/time.js';
import { vmFiles } from './qemu.js';
import { Qmp } from './qmp.js';
import type { HostKeys } from './seed.js';
import {
  type Template,
  type TemplateSpec,
  enforceTemplateCap,
  findTemplate,
  newTemplateMeta,
  removeTemplate,
  roomForTemplate,
  templateFiles,
  templatesRoot,
  writeTemplateMeta,
} from './template-store.js';

/**
 * Saving a prepared VM as a template and restoring one: the QEMU and guest
 * side of what template-store.ts keeps. A restored VM is the prepared VM
 * itself — same disks, same memory, same running dockerd — with fresh
 * overlays of its own and the few things that must differ per VM refreshed.
 */

/**
 * Template and VM files hold a guest's memory and disks (its keys, whatever
 * a run wrote): 0600, whatever mode the file they came from had, so they
 * stay root's alone even outside their 0700 folder (copied, moved, backed up).
 */
const PRIVATE = 0o600;

/** Copies a disk image keeping its holes (a 4 GiB data disk holds a few hundred MB); the copy is 0600. */
export async function copySparse(from: string, to: string, log: HostLog): Promise<void> {
  const result = await runLocal('cp', ['--sparse=always', '--', from, to], { log });
  if (result.code !== 0) throw new Error(`cp ${from} failed: ${result.stderr.trim()}`);
  await chmod(to, PRIVATE);
}

async function waitFor<T>(what: string, timeoutMs: number, poll: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const done = await poll();
    if (done !== undefined) return done;
    if (Date.now() > deadline) throw new Error(`${what} did not finish in ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

/**
 * Receives the migration stream on a unix socket and compresses it into
 * `file`, created 0600 (the guest's memory). Not QEMU's `exec:` URI: QEMU
 * sends SIGTERM to an exec'd writer as soon as it closes the pipe, which can
 * cut its last buffer off.
 */
export function receiveMigration(socketPath: string, file: string): { server: Server; written: Promise<void> } {
  let resolveWritten: () => void = () => {};
  let rejectWritten: (err: Error) => void = () => {};
  const written = new Promise<void>((resolve, reject) => {
    resolveWritten = resolve;
    rejectWritten = reject;
  });
  const server = createServer((socket) => {
    server.close();
    // zstd writes to a descriptor opened here, so the file is 0600 from its first byte.
    let out: number;
    try {
      out = openSync(file, 'w', PRIVATE);
      fchmodSync(out, PRIVATE);
    } catch (err) {
      socket.destroy();
      rejectWritten(err as Error);
      return;
    }
    const zstd = spawn('zstd', ['-q', '-1', '-T0', '-c'], { stdio: ['pipe', out, 'pipe'] }) as ChildProcessByStdio<
      Writable,
      null,
      Readable
    >;
    closeSync(out);
    let stderr = '';
    zstd.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    socket.pipe(zstd.stdin);
    zstd.on('error', rejectWritten);
    zstd.on('close', (code) => (code === 0 ? resolveWritten() : rejectWritten(new Error(`zstd: ${stderr.trim()}`))));
  });
  server.listen(socketPath);
  return { server, written };
}

/** Pauses the VM, writes its memory, copies its disks into `dir`, resumes it. */
async function snapshotVm(vmDir: string, dir: string, log: HostLog): Promise<void> {
  const vm = vmFiles(vmDir);
  const files = templateFiles(dir);
  const socketPath = join(vmDir, 'migrate.sock');
  await rm(socketPath, { force: true });
  const receiver = receiveMigration(socketPath, files.memory);
  const qmp = await Qmp.connect(vm.qmp);
  try {
    await qmp.execute('stop');
    try {
      await qmp.execute('migrate-set-parameters', { 'max-bandwidth': 16 * 1024 ** 3 });
      await qmp.execute('migrate', { uri: `unix:${socketPath}` });
      await waitFor('saving the VM memory', 300_000, async () => {
        const state = await qmp.execute<{ status?: string; 'error-desc'?: string }>('query-migrate');
        if (state.status === 'failed' || state.status === 'cancelled')
          throw new Error(`migration ${state.status}: ${state['error-desc'] ?? ''}`);
        return state.status === 'completed' ? true : undefined;
      });
      await receiver.written;
      // Paused and flushed: the disks are consistent with the memory just saved.
      await copySparse(vm.root, files.root, log);
      await copySparse(vm.data, files.data, log);
      await copyFile(vm.key, files.key);
      await chmod(files.key, PRIVATE);
    } finally {
      await qmp.execute('cont');
    }
  } finally {
    qmp.close();
    receiver.server.close();
    await rm(socketPath, { force: true });
  }
}

/**
 * Keeps the prepared VM in `vmDir` as the template `key` (unless one exists
 * and `replace` is not asked — `up --cold` replaces — or the disk has no
 * room). The VM runs on afterwards; its clock lost the pause, which the
 * caller puts right (refreshGuest). Returns whether it saved.
 */
export async function saveTemplate(
  vmDir: string,
  key: string,
  spec: TemplateSpec,
  hostKey: string,
  log: HostLog,
  replace = false,
): Promise<boolean> {
  if (findTemplate(key) && !replace) return false;
  if (!roomForTemplate(spec.memoryMiB, spec.diskGiB * 1024 ** 3)) {
    log.line(`template ${key}: not saved, the image cache's file system is short of space`);
    return false;
  }
  const partial = join(templatesRoot(), `${key}.partial-${process.pid}-${randomBytes(4).toString('hex')}`);
  await mkdir(partial, { recursive: true, mode: 0o700 });
  try {
    const t0 = Date.now();
    await snapshotVm(vmDir, partial, log);
    writeTemplateMeta(partial, newTemplateMeta(key, spec, hostKey));
    const existing = findTemplate(key);
    if (existing && !replace) return false; // another lab saved the same one meanwhile
    if (existing) await removeTemplate(existing);
    await rename(partial, join(templatesRoot(), key));
    log.line(`template ${key} saved in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    for (const gone of await enforceTemplateCap()) log.line(`template ${gone.key} removed (over the cache cap)`);
    return true;
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
}

/** Copies the template's disks into a new VM folder (fresh copies: the template stays untouched). */
export async function copyTemplateDisks(template: Template, vmDir: string, log: HostLog): Promise<void> {
  const from = templateFiles(template.dir);
  const to = vmFiles(vmDir);
  await copySparse(from.root, to.root, log);
  await copySparse(from.data, to.data, log);
}

/** QEMU's `-incoming` source for a template's memory (exec'd by /bin/sh: the path is quoted). */
export const incomingFrom = (template: Template) =>
  `exec:zstd -q -dc -- ${shellQuote(templateFiles(template.dir).memory)}`;

/** Waits until a restoring VM has loaded its memory, then lets it run. */
export async function resumeRestored(vmDir: string, timeoutMs = 120_000): Promise<void> {
  const qmp = await Qmp.connect(vmFiles(vmDir).qmp);
  try {
    const status = await waitFor('loading the template memory', timeoutMs, async () => {
      const s = await qmp.execute<{ status: string }>('query-status');
      return s.status === 'inmigrate' ? undefined : s.status;
    });
    if (status !== 'paused' && status !== 'postmigrate' && status !== 'running')
      throw new Error(`the VM did not load its template (status ${status})`);
    if (status !== 'running') await qmp.execute('cont');
  } finally {
    qmp.close();
  }
}

/** What a restored (or paused) guest gets: the time, fresh randomness, and — restored only — its own identity. */
export interface GuestRefresh {
  hostname?: string;
  keys?: HostKeys;
}

/**
 * The script that refreshes a guest (sent on stdin: no secret on a command
 * line). The clock: a paused or restored guest's clock stopped with it, and
 * under restrict=on no time server can put it right. Randomness: a restored
 * guest would otherwise draw the same numbers as every other copy; the
 * bytes are mixed in and the CRNG reseeded at once (RNDRESEEDCRNG; perl-base
 * is essential in Debian). Host key, authorized key and hostname: each lab
 * pins its own. The listening sshd is restarted for the new host key: since
 * OpenSSH 9.8 (Debian 13) it loads host keys once and hands them to every
 * sshd-session, so a file written afterwards is never served. Debian's
 * ssh.service kills only the listener (KillMode=process), so this session
 * survives, and `restart` returns when the new one is ready. Nothing
 * else in a guest must be unique: each VM is alone on its own user-mode
 * network, so machine-id and boot_id (shared by copies) reach no peer.
 */
export function refreshScript(refresh: GuestRefresh, now = Date.now(), seed = randomBytes(64)): string {
  const lines = [
    'set -euo pipefail',
    `date -s @${(now / 1000).toFixed(3)} > /dev/null`,
    `printf '%s' ${shellQuote(seed.toString('base64'))} | base64 -d > /dev/urandom`,
    `perl -e 'open(my $f, ">", "/dev/urandom") or die "$!\\n"; ioctl($f, 0x5207, 0) or die "RNDRESEEDCRNG: $!\\n"'`,
  ];
  if (refresh.keys) {
    const { hostPrivate, hostPublic, clientPublic } = refresh.keys;
    lines.push(
      'umask 077',
      `printf '%s\\n' ${shellQuote(hostPrivate.trim())} > /etc/ssh/ssh_host_ed25519_key.new`,
      'mv -f /etc/ssh/ssh_host_ed25519_key.new /etc/ssh/ssh_host_ed25519_key',
      `printf '%s\\n' ${shellQuote(hostPublic.trim())} > /etc/ssh/ssh_host_ed25519_key.pub`,
      `printf '%s\\n' ${shellQuote(clientPublic.trim())} > /root/.ssh/authorized_keys`,
      'systemctl restart ssh.service',
    );
  }
  if (refresh.hostname) {
    lines.push(
      `printf '%s\\n' ${shellQuote(refresh.hostname)} > /etc/hostname`,
      `hostname ${shellQuote(refresh.hostname)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Logs in with the credentials the guest has now and refreshes it
 * (refreshScript). A new identity is then proven by logging in with it, so
 * a guest still serving the template's host key fails here, at `up`, and not
 * at the run's first trial.
 */
export async function refreshGuest(
  endpoint: { name: string; port: number; privateKey: string; hostKey: string },
  refresh: GuestRefresh,
  log: HostLog,
  deadline: number,
): Promise<void> {
  const at = { address: '127.0.0.1', user: 'root' };
  const conn = await SshConnection.connect({ ...endpoint, ...at }, log, deadline);
  try {
    await conn.run('bash -s', { stdin: refreshScript(refresh), timeoutMs: 60_000 });
  } catch (err) {
    throw new LabError(`refreshing the guest failed: ${errorMessage(err)}`, { host: endpoint.name });
  } finally {
    conn.close();
  }
  if (!refresh.keys) return;
  const { clientPrivate, hostPublic } = refresh.keys;
  const renewed = await SshConnection.connect(
    { ...endpoint, ...at, privateKey: clientPrivate, hostKey: hostPublic.trim() },
    log,
    deadline,
  );
  renewed.close();
}
