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
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  let peak = 0;
  const poll = setInterval(() => {
    peak = Math.max(peak, peakRssKiB(child.pid as number) ?? 0);
  }, 100);
  return new Promise((done) => {
    child.on('close', (code) => {
      clearInterval(poll);
      done({ code, seconds: Number(process.hrtime.bigint() - started) / 1e9, peakRssKiB: peak });
    });
  });
}
