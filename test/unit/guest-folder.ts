/**
 * A folder as a guest leaves it for the controller to pull: the files, and a
 * MANIFEST written by guest/lib.sh itself (`ll_write_manifest`).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const LIB = resolve(import.meta.dirname, '..', '..', 'guest', 'lib.sh');

/** Writes (or writes again) the guest's MANIFEST of `dir`, as guest/lib.sh does. */
export function writeGuestManifest(dir: string): void {
  execFileSync('bash', ['-c', 'set -euo pipefail; source "$1"; ll_write_manifest "$2"', '_', LIB, dir]);
}

/** `parent/name` with these files (paths relative to it) and the guest's MANIFEST of them. */
export function guestFolder(parent: string, name: string, files: Record<string, string>): string {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  writeGuestManifest(dir);
  return dir;
}
