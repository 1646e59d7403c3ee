import { statSync, statfsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
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
  const declared = new Map<string, number>();
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
        else if (type !== 'Directory') {
          files.push(path.replace(/^\.\//, ''));
          declared.set(path, 'size' in entry ? Number(entry.size) : 0);
        }
        return reason === undefined;
      },
    }),
  );
  if (refused.length) throw new Error(`refused unsafe archive members: ${refused.join('; ')}`);
  // node-tar can end a file short without an error when the disk fills up
  // (seen on a full tmpfs): compare what landed with what the archive declared.
  const short = [...declared].filter(([path, size]) => statSync(join(dir, path)).size !== size);
  if (short.length) {
    const diskFull = statfsSync(dir).bavail === 0;
    const err: NodeJS.ErrnoException = new Error(
      `unpacked ${short.map(([p, size]) => `${p} (${statSync(join(dir, p)).size} of ${size} bytes)`).join(', ')} short${diskFull ? ': no space left on the device' : ''}`,
    );
    if (diskFull) err.code = 'ENOSPC';
    throw err;
  }
  return files;
}
