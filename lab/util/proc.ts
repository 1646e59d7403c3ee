import { type SpawnOptions, spawn } from 'node:child_process';
import { constants, accessSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import type { HostLog } from './log.js';
import { sleep } from './time.js';

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a local program (argv, never a shell string) and collects its output. */
export function runLocal(
  cmd: string,
  args: readonly string[],
  options: SpawnOptions & { log?: HostLog; timeoutMs?: number } = {},
): Promise<RunResult> {
  const { log, timeoutMs, ...spawnOptions } = options;
  log?.line(`local$ ${cmd} ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...spawnOptions });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => {
      stdout += c.toString();
      log?.output('  |', c);
    });
    child.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
      log?.output('  !', c);
    });
    const timer = timeoutMs ? setTimeout(() => child.kill('SIGKILL'), timeoutMs) : undefined;
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * True when `dir` (or a file in it) is one of a command line's arguments, or
 * the value of one (`--socket-path=<dir>/x`, `file=<dir>/x,if=none`). Whole
 * path components only: `<dir>.log` and `<dir>2/` do not name `<dir>`.
 */
export function argvNames(argv: readonly string[], dir: string): boolean {
  return argv.some((arg) => {
    const values = [arg, ...arg.split(/[=:]/).slice(1)].flatMap((v) => v.split(/(?<!,),(?!,)/));
    return values.some((v) => isWithin(v, dir));
  });
}

/** `path` is `dir` or under it, by whole path components (`<dir>2/x` is not). */
export function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}

function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
}

/**
 * True when `pid` is still the process layerlab started: its start time (in
 * clock ticks since boot, /proc/<pid>/stat field 22) is the one recorded at
 * launch, and its arguments name `marker` (a folder or file of that process).
 * State written before start times were recorded has none: then the argument
 * match alone decides.
 */
export function isOurProcess(pid: number, marker: string, startedAt?: string): boolean {
  if (!isAlive(pid)) return false;
  if (startedAt !== undefined && processStartTicks(pid) !== startedAt) return false;
  const argv = commandLine(pid);
  return !!argv && argvNames(argv, marker);
}

/**
 * Stops a process layerlab started (a share server of a VM), only while it
 * is still that process (isOurProcess): SIGTERM, up to 5 s to exit, then
 * SIGKILL and up to 2 s more. A pid that is now someone else's is left
 * alone; one that exits between the check and the signal is already done.
 */
export async function stopOurProcess(pid: number, marker: string, startedAt?: string): Promise<void> {
  const ours = () => isOurProcess(pid, marker, startedAt);
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  };
  if (!ours()) return;
  signal('SIGTERM');
  for (let i = 0; i < 50 && ours(); i++) await sleep(100);
  if (!ours()) return;
  signal('SIGKILL');
  for (let i = 0; i < 20 && ours(); i++) await sleep(100);
}

export function which(cmd: string): string | undefined {
  const dirs = (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/sbin']);
  for (const dir of dirs) {
    try {
      const path = `${dir}/${cmd}`;
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** A process identity that survives pid reuse: pid plus its start time (clock ticks since boot). */
export interface ProcessIdentity {
  pid: number;
  startTicks: string;
}

/**
 * The fields of /proc/<pid>/stat from field 3 (state) on, so field N is at
 * index N - 3; undefined when it is not running. The command name (field 2)
 * may contain spaces, so the fields are counted after its last ')'.
 */
export function procStatFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Clock ticks per second in /proc/<pid>/stat and /proc/stat (USER_HZ: 100 on Linux, whatever the kernel's HZ). */
export const USER_HZ = 100;

/** The CPU time a process has used, user + system (fields 14 and 15), in seconds, from procStatFields' fields. */
export function cpuSecondsOf(fields: readonly string[]): number {
  return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
}

/** When `pid` started, in clock ticks since boot (field 22); undefined when it is not running. */
export function processStartTicks(pid: number): string | undefined {
  return procStatFields(pid)?.[19];
}

export function currentProcessIdentity(): ProcessIdentity {
  return { pid: process.pid, startTicks: processStartTicks(process.pid) ?? '?' };
}

export function isProcessAlive(identity: ProcessIdentity): boolean {
  return isAlive(identity.pid) && processStartTicks(identity.pid) === identity.startTicks;
}

/**
 * The files under `dir` that some process has open (a VM's disk backed by a
 * cached image), read once from every /proc/<pid>/fd this user may look
 * into, whichever layerlab state folder or checkout started the process.
 */
export function openFilesUnder(dir: string): string[] {
  const open: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue; // gone since, or not ours to look into
    }
    for (const fd of fds) {
      try {
        const target = readlinkSync(`/proc/${entry}/fd/${fd}`);
        if (isWithin(target, dir)) open.push(target);
      } catch {
        // closed since
      }
    }
  }
  return open;
}
