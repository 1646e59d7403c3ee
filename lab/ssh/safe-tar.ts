import { chmodSync, lstatSync, readdirSync, statSync, statfsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';
import { quoted } from '../util/safe-text.js';

/** Why a member of a pulled archive is refused, or undefined when it is fine. */
export function unsafeMemberReason(path: string, type: string): string | undefined {
  if (isAbsolute(path) || /^[a-zA-Z]:/.test(path)) return `absolute path ${quoted(path)}`;
  if (path.split(/[\\/]/).includes('..')) return `path with ".." ${quoted(path)}`;
  if (type !== 'File' && type !== 'Directory' && type !== 'OldFile' && type !== 'ContiguousFile') {
    return `${type} entry ${quoted(path)} (only files and directories are accepted)`;
  }
  return undefined;
}

/**
 * The mode a pulled file or folder gets: never the guest's setuid, setgid or
 * sticky bits (the controller runs as root), only whether it was executable.
 */
export function maskedMode(mode: number | undefined, isDirectory: boolean): number {
  if (isDirectory) return 0o755;
  return (mode ?? 0) & 0o111 ? 0o755 : 0o644;
}

/**
 * Sets the masked mode on everything under `dir`: `intended` holds the last
 * member's mode by path (node-tar rewrites a file a later member replaces but
 * keeps its first mode); folders made as parents get 0755.
 */
function maskTree(dir: string, intended: ReadonlyMap<string, number>, prefix = ''): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) continue; // refused members never land; lstat keeps it so
    chmodSync(path, maskedMode(intended.get(rel) ?? stat.mode, stat.isDirectory()));
    if (stat.isDirectory()) maskTree(path, intended, rel);
  }
}

/**
 * Unpacks a tar stream into `dir`, refusing (not silently rewriting) absolute
 * paths, ".." and links: a collected archive comes from a machine we test on,
 * not one we trust. Modes are masked (files 0644 or 0755, folders 0755).
 */
export async function extractSafely(source: Readable, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const refused: string[] = [];
  const files: string[] = [];
  const declared = new Map<string, number>();
  const intended = new Map<string, number>();
  await pipeline(
    source,
    tar.x({
      cwd: dir,
      strict: true,
      preserveOwner: false,
      filter: (path, entry) => {
        const type = 'type' in entry ? String(entry.type) : 'File';
        const reason = unsafeMemberReason(path, type);
        // Masked as it is created, so a setuid file never exists even for a moment.
        if ('mode' in entry) {
          entry.mode = maskedMode(entry.mode, type === 'Directory');
          intended.set(path.replace(/^\.\//, '').replace(/\/+$/, ''), entry.mode);
        }
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
  // Folders created as parents, and files replaced in place, keep other modes: mask them all.
  maskTree(dir, intended);
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
