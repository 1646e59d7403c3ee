import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const BIN = join(resolve(import.meta.dirname, '..'), 'bin', 'layerlab.js');

export interface Timed {
  code: number | null;
  seconds: number;
  peakRssKiB: number;
}

/** A process's peak RSS so far (VmHWM) in KiB; undefined once it is gone. */
export function peakRssKiB(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Runs the CLI, timing it and sampling its peak RSS (VmHWM) from /proc. */
export function timedLayerlab(env: NodeJS.ProcessEnv, ...args: string[]): Promise<Timed> {
  return timedCommand(process.execPath, [BIN, ...args], { env });
}

/**
 * Runs a command (stdout dropped, stderr shown), timing it and sampling its
 * peak RSS (VmHWM, of that process alone) from /proc; `cwd` defaults to this process's.
 */
export function timedCommand(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string },
): Promise<Timed> {
  const started = process.hrtime.bigint();
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'ignore', 'inherit'] });
  let peak = 0;
  const poll = setInterval(() => {
    peak = Math.max(peak, peakRssKiB(child.pid as number) ?? 0);
  }, 100);
  return new Promise((done) => {
    const finish = (code: number | null) => {
      clearInterval(poll);
      done({ code, seconds: Number(process.hrtime.bigint() - started) / 1e9, peakRssKiB: peak });
    };
    child.on('close', finish);
    // A command that cannot start (not on PATH) fails its step instead of crashing the bench.
    child.on('error', (err) => {
      console.error(`${command}: ${err.message}`);
      finish(null);
    });
  });
}
