import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { LabError } from '../errors.js';
import { GUEST_DIR, PACKAGE_ROOT, cacheRoot } from '../paths.js';
import { aptSourceFiles } from '../util/apt-sources.js';
import { ensureBuilt } from '../util/build-cache.js';
import { hashInputs } from '../util/hash.js';
import type { HostLog } from '../util/log.js';
import { runLocal } from '../util/proc.js';

const BUILDER = join(PACKAGE_ROOT, 'lab', 'toolimages', 'build.sh');

export interface ToolImage {
  name: string;
  /** Docker tag on every host; the key pins the exact recipe and mirror. */
  tag: string;
  /** zstd-compressed tarball for `docker import`. */
  archive: string;
}

function recipePath(name: string): string {
  return join(GUEST_DIR, 'images', `${name}.image`);
}

/** Reads guest/images/<name>.image (key=value lines; build.sh reads the same file). */
export function readRecipe(name: string): Record<string, string> {
  const path = recipePath(name);
  if (!existsSync(path)) throw new Error(`${path}: no such tool image recipe`);
  const values = Object.fromEntries(
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l.trim() && !l.trim().startsWith('#'))
      .map((l) => {
        const i = l.indexOf('=');
        return [l.slice(0, i).trim(), l.slice(i + 1).trim()];
      }),
  );
  if (!values.packages) throw new Error(`${path}: needs packages=`);
  if (values.rootfs !== 'full' && !values.binaries) throw new Error(`${path}: needs binaries= (or rootfs=full)`);
  return values;
}

export async function toolImageTag(name: string): Promise<string> {
  const key = await hashInputs([recipePath(name), BUILDER, ...aptSourceFiles()], ['tool-image-v2']);
  return `layerlab/${name}:${key}`;
}

/** Builds a tool image once on the controller; every host loads the same bytes. */
export async function ensureToolImage(name: string, log: HostLog, onBuild?: () => void): Promise<ToolImage> {
  const tag = await toolImageTag(name);
  const dir = join(cacheRoot(), 'tools', tag.replace(/[/:]/g, '-'));
  const archive = join(dir, 'image.tar.zst');
  await ensureBuilt(dir, 'image.tar.zst', async () => {
    onBuild?.();
    await mkdir(dir, { recursive: true });
    readRecipe(name); // refuse a malformed recipe before mmdebstrap runs
    const tarball = join(dir, 'image.tar');
    const built = await runLocal('bash', [BUILDER, tarball, recipePath(name), ...aptSourceFiles()], { log });
    if (built.code !== 0 || !existsSync(tarball)) {
      throw new LabError(`building tool image ${name} failed (exit ${built.code}); see ${log.path}`, {
        phase: 'tool-image',
      });
    }
    const packed = await runLocal('zstd', ['-q', '-3', '-T0', '--rm', '-f', tarball, '-o', `${archive}.tmp`], { log });
    if (packed.code !== 0) throw new LabError(`compressing tool image ${name} failed: ${packed.stderr.trim()}`);
    await runLocal('mv', [`${archive}.tmp`, archive]);
    await rm(tarball, { force: true });
  });
  return { name, tag, archive };
}
