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

/** Reads guest/images/<name>.image (key=value lines). */
export function readRecipe(name: string): { packages: string; binaries: string } {
  const text = readFileSync(recipePath(name), 'utf8');
  const values = Object.fromEntries(
    text
      .split('\n')
      .filter((l) => l.trim() && !l.trim().startsWith('#'))
      .map((l) => {
        const i = l.indexOf('=');
        return [l.slice(0, i).trim(), l.slice(i + 1).trim()];
      }),
  );
  if (!values.packages || !values.binaries) throw new Error(`${recipePath(name)}: needs packages= and binaries=`);
  return { packages: values.packages, binaries: values.binaries };
}

export async function toolImageTag(name: string): Promise<string> {
  const key = await hashInputs([recipePath(name), BUILDER, ...aptSourceFiles()], ['tool-image-v1']);
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
    const { packages, binaries } = readRecipe(name);
    const tarball = join(dir, 'image.tar');
    const built = await runLocal('bash', [BUILDER, tarball, packages, binaries, ...aptSourceFiles()], { log });
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
