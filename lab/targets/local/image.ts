import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_OS_RELEASE, OS_RELEASES, type OsRelease } from '../../catalog.js';
import { LabError } from '../../errors.js';
import { PACKAGE_ROOT, cacheRoot } from '../../paths.js';
import { aptSourceFiles } from '../../util/apt-sources.js';
import { ensureBuilt } from '../../util/build-cache.js';
import { hashInputs } from '../../util/hash.js';
import type { HostLog } from '../../util/log.js';
import { runLocal } from '../../util/proc.js';
import { writeReleaseSources } from './image/sources.js';

const RECIPE_DIR = join(PACKAGE_ROOT, 'lab', 'targets', 'local', 'image');
const RECIPE_FILES = ['packages.txt', 'build.sh', 'customize.sh'].map((f) => join(RECIPE_DIR, f));

/**
 * Packages a release adds to packages.txt (debian-13: podman), one file per
 * release that has any; the AWS program's cloud-init installs the same lists.
 */
export function releasePackageFiles(release: OsRelease): string[] {
  const file = join(RECIPE_DIR, `packages.${release}.txt`);
  return existsSync(file) ? [file] : [];
}

/**
 * The guest kernel: Debian's cloud kernel, or its generic one where a lab
 * needs what the cloud kernel leaves out (9p). Each is kernel.<flavour>.txt.
 */
export const KERNEL_FLAVOURS = ['cloud', 'generic'] as const;
export type KernelFlavour = (typeof KERNEL_FLAVOURS)[number];

const kernelList = (kernel: KernelFlavour) => join(RECIPE_DIR, `kernel.${kernel}.txt`);

export interface GuestImage {
  key: string;
  /** The Debian release it is built from. */
  release: OsRelease;
  dir: string;
  base: string;
  kernel: string;
  initrd: string;
}

/**
 * The machine's apt sources moved to `release` (same mirror, its suites),
 * written under the image cache: the inputs of build and key alike.
 */
async function releaseSources(release: OsRelease): Promise<string[]> {
  const files = aptSourceFiles();
  if (!files.length) {
    throw new LabError('no apt sources found; set LAYERLAB_APT_SOURCES to a Debian sources file (any release)');
  }
  return writeReleaseSources(files, OS_RELEASES[release].codename, join(cacheRoot(), 'images', `apt-${release}`));
}

/** The cache key: recipe files, the release's and the kernel's package lists and the apt sources it is built from. */
export async function guestImageKey(
  release: OsRelease = DEFAULT_OS_RELEASE,
  kernel: KernelFlavour = 'cloud',
): Promise<string> {
  const inputs = [...RECIPE_FILES, ...imagePackageFiles(release, kernel), ...(await releaseSources(release))];
  return hashInputs(inputs, ['guest-image-v1', release, kernel]);
}

/** The package lists build.sh adds to packages.txt: the release's own, then the kernel. */
const imagePackageFiles = (release: OsRelease, kernel: KernelFlavour) => [
  ...releasePackageFiles(release),
  kernelList(kernel),
];

/** Where the image of this release, kernel and key is cached (image-sweep.ts reads the names back). */
export const guestImageDir = (release: OsRelease, kernel: KernelFlavour, key: string) =>
  join(cacheRoot(), 'images', `guest-${release}${kernel === 'cloud' ? '' : `-${kernel}`}-${key}`);

/**
 * Builds (once per recipe, release and kernel) the Debian guest image the
 * local VMs of that release boot from. `release` and `kernel` are last so
 * that callers from before they existed keep working (debian-12, cloud).
 */
export async function ensureGuestImage(
  log: HostLog,
  onBuild?: () => void,
  release: OsRelease = DEFAULT_OS_RELEASE,
  kernel: KernelFlavour = 'cloud',
): Promise<GuestImage> {
  const key = await guestImageKey(release, kernel);
  const dir = guestImageDir(release, kernel, key);
  const image: GuestImage = {
    key,
    release,
    dir,
    base: join(dir, 'base.raw'),
    kernel: join(dir, 'vmlinuz'),
    initrd: join(dir, 'initrd.img'),
  };
  await ensureBuilt(dir, 'base.raw', async () => {
    onBuild?.();
    const sources = await releaseSources(release);
    const args = [
      join(RECIPE_DIR, 'build.sh'),
      dir,
      OS_RELEASES[release].codename,
      ...imagePackageFiles(release, kernel),
    ];
    const result = await runLocal('bash', [...args, '--', ...sources], { log });
    if (result.code !== 0 || !existsSync(image.base)) {
      throw new LabError(
        `building the ${release} guest image failed (exit ${result.code}); see ${log.path}\n    ${result.stderr.trim().split('\n').slice(-5).join('\n    ')}`,
        { phase: 'image' },
      );
    }
  });
  return image;
}
