import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const BIN = resolve(import.meta.dirname, '..', '..', 'bin', 'layerlab.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI as a child process in `cwd` with `env`; its progress stays visible in CI logs. */
export function cliRunner(cwd: string, env: NodeJS.ProcessEnv) {
  return (...args: string[]): Promise<CliResult> =>
    new Promise((done) => {
      const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => {
        stdout += c;
      });
      child.stderr.on('data', (c) => {
        stderr += c;
        process.stderr.write(c);
      });
      child.on('close', (code) => {
        if (code !== 0) printHostLogs(stderr);
        done({ code, stdout, stderr });
      });
    });
}

/**
 * A failed command that names its hosts' logs ("(logs: <dir>/hosts/<host>.log
 * and <host>/console.log)"): their last lines go to CI's log now, because the
 * test's cleanup removes the folder before anyone could read it.
 */
function printHostLogs(stderr: string): void {
  const hostsDir = /\(logs: (\S+)\/hosts\/<host>\.log/.exec(stderr)?.[1];
  if (!hostsDir) return;
  const dir = join(hostsDir, 'hosts');
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir).sort()) {
    const file = name.endsWith('.log') ? join(dir, name) : join(dir, name, 'console.log');
    if (!existsSync(file)) continue;
    const tail = readFileSync(file, 'utf8').split('\n').slice(-40).join('\n');
    process.stderr.write(`--- last lines of ${file} ---\n${tail}\n`);
  }
}
