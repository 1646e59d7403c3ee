/**
 * The unit tests pass on a machine with Node and nothing else: a test that
 * runs a tool the lab installs (QEMU, zstd, ...) is skipped, naming the tool,
 * where the tool is not on PATH. `npm test` installs them first
 * (`layerlab doctor --install --for tests`).
 */
import { constants, accessSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where spawn would find the command on PATH (no fallback folders: the lookup spawn itself does). */
export function findOnPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, command), constants.X_OK);
      return join(dir, command);
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

/** The reason to skip when one of the commands is not on PATH, else false: `it(name, { skip: needs('zstd') }, ...)`. */
export function needs(...commands: string[]): string | false {
  const missing = commands.filter((c) => !findOnPath(c));
  if (!missing.length) return false;
  return `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not installed (npm test installs ${missing.length > 1 ? 'them' : 'it'} as root: layerlab doctor --install --for tests)`;
}
