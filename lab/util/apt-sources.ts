import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The apt sources this machine already uses, handed to mmdebstrap so guest
 * and tool images come from the same mirror (no other network access).
 * LAYERLAB_APT_SOURCES (colon-separated files) overrides, e.g. on Ubuntu.
 */
export function aptSourceFiles(): string[] {
  const override = process.env.LAYERLAB_APT_SOURCES;
  if (override) return override.split(':').filter(Boolean);
  const files: string[] = [];
  const main = '/etc/apt/sources.list';
  if (existsSync(main) && /^\s*deb\s/m.test(readFileSync(main, 'utf8'))) files.push(main);
  const dir = '/etc/apt/sources.list.d';
  if (existsSync(dir)) {
    for (const f of readdirSync(dir).sort()) {
      if (f.endsWith('.list') || f.endsWith('.sources')) files.push(join(dir, f));
    }
  }
  return files;
}
