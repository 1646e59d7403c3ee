/**
 * A temporary root shaped like a host's /opt/layerlab, for running guest
 * scripts in bash on this machine: guest/lib.sh (plus other guest/ files) and
 * scenarios' guest.sh at their relative places (a scenario script sources
 * ../../../guest/lib.sh from its own folder), lines appended to lib.sh that
 * point its folders into the root, and a bin folder for fake commands to put
 * first on PATH. Removed after the test file.
 */
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after } from 'node:test';

const REPO = resolve(import.meta.dirname, '..', '..');

export interface GuestSandbox {
  root: string;
  /** Fake commands go here; `path` puts it first on PATH. */
  bin: string;
  path: string;
  /** Where scenario `name`'s guest.sh is in the sandbox. */
  script(name: string): string;
  /** Writes an executable bash script `bin/<name>` with this body. */
  fake(name: string, body: string): void;
}

export function guestSandbox(
  prefix: string,
  options: {
    scenarios?: readonly string[];
    /** Other files of guest/ to copy beside lib.sh. */
    guestFiles?: readonly string[];
    /** Appended to the copy of lib.sh: assignments that move its folders into the root, overrides. */
    libTail?: (root: string) => string;
  } = {},
): GuestSandbox {
  const root = mkdtempSync(join(tmpdir(), `layerlab-${prefix}-`));
  after(() => rmSync(root, { recursive: true, force: true }));
  const bin = join(root, 'bin');
  mkdirSync(bin);
  mkdirSync(join(root, 'guest'));
  for (const file of ['lib.sh', ...(options.guestFiles ?? [])]) {
    cpSync(join(REPO, 'guest', file), join(root, 'guest', file));
  }
  const script = (name: string) => join(root, 'lab', 'scenarios', name, 'guest.sh');
  for (const name of options.scenarios ?? []) {
    mkdirSync(join(root, 'lab', 'scenarios', name), { recursive: true });
    cpSync(join(REPO, 'lab', 'scenarios', name, 'guest.sh'), script(name));
  }
  if (options.libTail) writeFileSync(join(root, 'guest', 'lib.sh'), `\n${options.libTail(root)}\n`, { flag: 'a' });
  return {
    root,
    bin,
    path: `${bin}:${process.env.PATH}`,
    script,
    fake(name, body) {
      writeFileSync(join(bin, name), `#!/usr/bin/env bash\n${body}`);
      chmodSync(join(bin, name), 0o755);
    },
  };
}
