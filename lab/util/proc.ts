import { type SpawnOptions, spawn } from 'node:child_process';
import { constants, accessSync, readFileSync } from 'node:fs';
import type { HostLog } from './log.js';

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

/** True when `pid` is alive and its command line mentions `marker` (guards against pid reuse). */
export function isOurProcess(pid: number, marker: string): boolean {
  if (!isAlive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
  } catch {
    return false;
  }
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

function startTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22; the command name (field 2) may contain spaces, so count after its ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export function currentProcessIdentity(): ProcessIdentity {
  return { pid: process.pid, startTicks: startTicks(process.pid) ?? '?' };
}

export function isProcessAlive(identity: ProcessIdentity): boolean {
  return isAlive(identity.pid) && startTicks(identity.pid) === identity.startTicks;
}
