import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LabError } from '../../errors.js';
import { PACKAGE_ROOT, cacheRoot } from '../../paths.js';
import { aptSourceFiles } from '../../util/apt-sources.js';
import { ensureBuilt } from '../../util/build-cache.js';
import { hashInputs } from '../../util/hash.js';
import type { HostLog } from '../../util/log.js';
import { runLocal } from '../../util/proc.js';

const RECIPE_DIR = join(PACKAGE_ROOT, 'lab', 'targets', 'local', 'image');
const RECIPE_FILES = ['packages.txt', 'build.sh', 'customize.sh'].map((f) => join(RECIPE_DIR, f));

export interface GuestImage {
  key: string;
  dir: string;
  base: string;
  kernel: string;
  initrd: string;
}

/** The cache key: recipe files and the apt sources they are built from. */
export async function guestImageKey(): Promise<string> {
  return hashInputs([...RECIPE_FILES, ...aptSourceFiles()], ['guest-image-v1']);
}

/** Builds (once per recipe) the Debian 12 guest image every local VM boots from. */
export async function ensureGuestImage(log: HostLog, onBuild?: () => void): Promise<GuestImage> {
  const key = await guestImageKey();
  const dir = join(cacheRoot(), 'images', `guest-${key}`);
  const image: GuestImage = {
    key,
    dir,
    base: join(dir, 'base.raw'),
    kernel: join(dir, 'vmlinuz'),
    initrd: join(dir, 'initrd.img'),
  };
  await ensureBuilt(dir, 'base.raw', async () => {
    onBuild?.();
    const sources = aptSourceFiles();
    if (!sources.length)
      throw new LabError('no apt sources found; set LAYERLAB_APT_SOURCES to a Debian 12 sources file');
    const result = await runLocal('bash', [join(RECIPE_DIR, 'build.sh'), dir, ...sources], { log });
    if (result.code !== 0 || !existsSync(image.base)) {
      throw new LabError(
        `building the guest image failed (exit ${result.code}); see ${log.path}\n    ${result.stderr.trim().split('\n').slice(-5).join('\n    ')}`,
        { phase: 'image' },
      );
    }
  });
  return image;
}
