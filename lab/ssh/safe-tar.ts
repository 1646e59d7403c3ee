import { mkdir } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';

/** Why a member of a pulled archive is refused, or undefined when it is fine. */
export function unsafeMemberReason(path: string, type: string): string | undefined {
  if (isAbsolute(path) || /^[a-zA-Z]:/.test(path)) return `absolute path ${JSON.stringify(path)}`;
  if (path.split(/[\\/]/).includes('..')) return `path with ".." ${JSON.stringify(path)}`;
  if (type !== 'File' && type !== 'Directory' && type !== 'OldFile' && type !== 'ContiguousFile') {
    return `${type} entry ${JSON.stringify(path)} (only files and directories are accepted)`;
  }
  return undefined;
}

/**
 * Unpacks a tar stream into `dir`, refusing (not silently rewriting) absolute
 * paths, ".." and links: a collected archive comes from a machine we test on,
 * not one we trust.
 */
export async function extractSafely(source: Readable, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const refused: string[] = [];
  const files: string[] = [];
  await pipeline(
    source,
    tar.x({
      cwd: dir,
      strict: true,
      preserveOwner: false,
      filter: (path, entry) => {
        const type = 'type' in entry ? String(entry.type) : 'File';
        const reason = unsafeMemberReason(path, type);
        if (reason) refused.push(reason);
        else if (type !== 'Directory') files.push(path.replace(/^\.\//, ''));
        return reason === undefined;
      },
    }),
  );
  if (refused.length) throw new Error(`refused unsafe archive members: ${refused.join('; ')}`);
  return files;
}
