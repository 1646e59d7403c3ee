import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The apt source files of a machine whose root folder is `root` (this
 * machine's `/`, or a copy of a host's /etc/apt pulled under a scratch
 * folder), as that machine names them: sources.list when it has a `deb`
 * line, and every .list and .sources file of sources.list.d, sorted.
 */
export function aptSourcesUnder(root: string): string[] {
  const files: string[] = [];
  const main = '/etc/apt/sources.list';
  if (existsSync(join(root, main)) && /^\s*deb\s/m.test(readFileSync(join(root, main), 'utf8'))) files.push(main);
  const dir = '/etc/apt/sources.list.d';
  if (existsSync(join(root, dir))) {
    for (const f of readdirSync(join(root, dir)).sort()) {
      if (f.endsWith('.list') || f.endsWith('.sources')) files.push(`${dir}/${f}`);
    }
  }
  return files;
}

/**
 * The apt sources this machine already uses, handed to mmdebstrap so guest
 * and tool images come from the same mirror (no other network access).
 * LAYERLAB_APT_SOURCES (colon-separated files) overrides, e.g. on Ubuntu.
 */
export function aptSourceFiles(): string[] {
  const override = process.env.LAYERLAB_APT_SOURCES;
  if (override) return override.split(':').filter(Boolean);
  return aptSourcesUnder('/');
}
