import { createHash } from 'node:crypto';
import { createReadStream, lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import { quoted } from '../util/safe-text.js';

/** What is on disk under a pulled folder: regular files by relative path, and anything else. */
interface Listing {
  files: Map<string, number>;
  others: string[];
}

/** Walks `dir` without following links: only regular files count as files. */
function listTree(dir: string, prefix = '', listing: Listing = { files: new Map(), others: [] }): Listing {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    const stat = lstatSync(join(dir, entry.name));
    if (stat.isDirectory()) listTree(join(dir, entry.name), rel, listing);
    else if (stat.isFile()) listing.files.set(rel, stat.size);
    else listing.others.push(rel);
  }
  return listing;
}

function sha256(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (c) => hash.update(c))
      .on('end', () => resolve(hash.digest('hex')))
      .on('error', reject);
  });
}

/**
 * Why a path a guest wrote into its MANIFEST cannot name a file of the pulled
 * folder, or undefined when it can: relative, normalised, no "..", no NUL.
 */
export function unsafeManifestPath(path: string): string | undefined {
  if (!path) return 'empty path';
  if (path.includes('\0')) return 'path with a NUL byte';
  if (path.startsWith('/') || /^[a-zA-Z]:/.test(path) || path.includes('\\')) return 'not a relative path';
  if (path.split('/').includes('..')) return 'path with ".."';
  if (posix.normalize(path) !== path || path.split('/').includes('.')) return 'path not in normal form';
  return undefined;
}

/** Quoted for a message: a guest's path can hold anything, control characters included. */
function shown(path: string): string {
  if (/^[\w ./+-]{1,200}$/.test(path)) return path;
  return quoted(path.length > 200 ? `${path.slice(0, 200)}...` : path);
}

const LINE = /^([0-9a-f]{64}) (\d{1,15}) (.+)$/;

/**
 * Checks a pulled folder against the MANIFEST the guest wrote before sending
 * it ("sha256 size path" per file): every file present with its size and
 * hash, nothing extra. Returns the problems (empty when all is well).
 *
 * The guest is not trusted: a MANIFEST path is only ever looked up among the
 * regular files found under `dir` (never opened as given), so "../../dev/zero"
 * cannot make the controller read forever, nor tell whether a controller file
 * exists. A file is hashed only when its size on disk is the one declared.
 */
export async function checkManifest(dir: string): Promise<string[]> {
  const { files, others } = listTree(dir);
  const problems = others.map((p) => `${shown(p)}: not a regular file`);
  if (!files.has('MANIFEST')) {
    return [
      others.includes('MANIFEST')
        ? 'MANIFEST is not a regular file'
        : 'no MANIFEST from the guest (incomplete transfer?)',
    ];
  }
  const expected = new Map<string, { hash: string; size: number }>();
  readFileSync(join(dir, 'MANIFEST'), 'utf8')
    .split('\n')
    .forEach((line, index) => {
      if (!line) return;
      const where = `MANIFEST line ${index + 1}`;
      const [, hash = '', size = '', path = ''] = LINE.exec(line) ?? [];
      const unsafe = path ? unsafeManifestPath(path) : undefined;
      if (!path) problems.push(`${where}: not "sha256 size path"`);
      else if (unsafe) problems.push(`${where}: ${unsafe}: ${shown(path)}`);
      else if (path === 'MANIFEST') problems.push(`${where}: lists the MANIFEST itself`);
      else if (expected.has(path)) problems.push(`${where}: ${shown(path)} listed twice`);
      else expected.set(path, { hash, size: Number(size) });
    });
  // A MANIFEST that names paths outside the folder is a hostile one: nothing of it is used.
  if (problems.length) return problems;
  for (const [path, { hash, size }] of expected) {
    const onDisk = files.get(path);
    if (onDisk === undefined) problems.push(`${shown(path)}: missing`);
    else if (onDisk !== size) problems.push(`${shown(path)}: ${onDisk} bytes, the guest wrote ${size}`);
    else if ((await sha256(join(dir, path))) !== hash) problems.push(`${shown(path)}: sha256 differs from the guest's`);
  }
  for (const path of files.keys()) {
    if (path !== 'MANIFEST' && !expected.has(path)) problems.push(`${shown(path)}: not in the guest's MANIFEST`);
  }
  return problems;
}
