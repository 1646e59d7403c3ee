import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/** A cache key over files' contents (and any extra strings): change a recipe, get a new key. */
export async function hashInputs(files: readonly string[], extra: readonly string[] = []): Promise<string> {
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(file.split('/').slice(-2).join('/'));
    hash.update(await readFile(file));
  }
  for (const s of extra) hash.update(s);
  return hash.digest('hex').slice(0, 16);
}
