import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

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
      child.on('close', (code) => done({ code, stdout, stderr }));
    });
}
