import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/** A named piece of a cache key: a file's last two path parts and its bytes. */
export interface NamedBytes {
  name: string;
  data: Buffer;
}

/** The key of named pieces: the same pieces, read here or on another machine, give the same key. */
export function hashNamed(parts: readonly NamedBytes[], extra: readonly string[] = []): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    hash.update(part.name);
    hash.update(part.data);
  }
  for (const s of extra) hash.update(s);
  return hash.digest('hex').slice(0, 16);
}

/** A file as a key piece: named by its last two path parts, so moving a checkout keeps the key. */
export async function namedFile(file: string, data?: Buffer): Promise<NamedBytes> {
  return { name: file.split('/').slice(-2).join('/'), data: data ?? (await readFile(file)) };
}

/** A cache key over files' contents (and any extra strings): change a recipe, get a new key. */
export async function hashInputs(files: readonly string[], extra: readonly string[] = []): Promise<string> {
  return hashNamed(await Promise.all(files.map((f) => namedFile(f))), extra);
}
