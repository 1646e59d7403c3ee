import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LabError } from '../errors.js';
import { GUEST_DIR, PACKAGE_ROOT, cacheRoot } from '../paths.js';
import { aptSourceFiles } from '../util/apt-sources.js';
import { ensureBuilt } from '../util/build-cache.js';
import { type NamedBytes, hashNamed, namedFile } from '../util/hash.js';
import type { HostLog } from '../util/log.js';
import { runLocal, which } from '../util/proc.js';

/** The builder, run on the controller or (pushed with guest/) on a Debian host of the lab. */
export const BUILDER_ENTRY = 'lab/toolimages/build.sh';
const BUILDER = join(PACKAGE_ROOT, BUILDER_ENTRY);
/** The compressed image in each cache folder; its presence says the build finished. */
export const ARCHIVE = 'image.tar.zst';

export interface ToolImage {
  name: string;
  /** Docker tag on every host; the key pins the exact recipe, builder and apt sources. */
  tag: string;
  /** zstd-compressed tarball for `docker import`. */
  archive: string;
  /** Of the archive: every host checks the bytes it loads against it. */
  sha256: string;
}

const RECIPES = join(GUEST_DIR, 'images');
const RECIPE_SUFFIX = '.image';

function recipePath(name: string): string {
  return join(RECIPES, `${name}${RECIPE_SUFFIX}`);
}

/** The name of every tool image recipe in guest/images/. */
export function recipeNames(): string[] {
  return readdirSync(RECIPES)
    .filter((f) => f.endsWith(RECIPE_SUFFIX))
    .map((f) => f.slice(0, -RECIPE_SUFFIX.length));
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

/** The controller's own apt sources as key pieces. */
export function controllerSources(): Promise<NamedBytes[]> {
  return Promise.all(aptSourceFiles().map((f) => namedFile(f)));
}

/**
 * A tool image's tag: recipe + builder + the apt sources of the machine that
 * builds it (the controller's, or a lab host's). The same inputs read on
 * either machine give the same tag, so a cache built by one serves the other.
 */
export async function toolImageTag(name: string, sources: readonly NamedBytes[]): Promise<string> {
  const key = hashNamed([await namedFile(recipePath(name)), await namedFile(BUILDER), ...sources], ['tool-image-v2']);
  return `layerlab/${name}:${key}`;
}

/** Why this controller cannot build tool images itself, or undefined when it can. */
export function controllerCannotBuild(): string | undefined {
  if (process.getuid?.() !== 0) return 'it does not run as root';
  if (!which('mmdebstrap')) return 'mmdebstrap is not on its PATH';
  if (!which('zstd')) return 'zstd is not on its PATH';
  if (aptSourceFiles().length === 0)
    return 'it has no apt sources (set LAYERLAB_APT_SOURCES to Debian 12 source files)';
  return undefined;
}

export function toolCacheDir(tag: string): string {
  return join(cacheRoot(), 'tools', tag.replace(/[/:]/g, '-'));
}

const LATEST_SUFFIX = '.latest';
const perLabPointers = () => join(cacheRoot(), 'tools', 'latest');

/**
 * The image of `name` a controller that cannot build runs next: per lab (what
 * that lab's last prepare loaded, so another lab's prepare cannot change a
 * run's tag under it), or, for a lab with no host that can build, the last
 * one this cache received for any lab.
 */
function latestPointer(name: string, lab?: string): string {
  return lab ? join(perLabPointers(), lab, name) : join(cacheRoot(), 'tools', `${name}${LATEST_SUFFIX}`);
}

/** The tags every "latest" pointer in this cache names (sweep keeps their images). */
export function latestPointedTags(): string[] {
  const root = join(cacheRoot(), 'tools');
  const files = existsSync(root)
    ? readdirSync(root)
        .filter((f) => f.endsWith(LATEST_SUFFIX))
        .map((f) => join(root, f))
    : [];
  if (existsSync(perLabPointers())) {
    for (const lab of readdirSync(perLabPointers())) {
      const dir = join(perLabPointers(), lab);
      if (statSync(dir).isDirectory()) files.push(...readdirSync(dir).map((f) => join(dir, f)));
    }
  }
  return files.map((f) => readFileSync(f, 'utf8').trim());
}

/** Marks an image a lab host built: a controller that can build makes its own instead of trusting it. */
export const BUILT_ON_HOST = 'built-on-host';

export async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The cached image of `tag`, if its build finished; remembered as the latest of its name (and of `lab`'s). */
export async function cachedToolImage(name: string, tag: string, lab?: string): Promise<ToolImage | undefined> {
  const archive = join(toolCacheDir(tag), ARCHIVE);
  if (!existsSync(archive)) return undefined;
  await writeFile(latestPointer(name), `${tag}\n`);
  if (lab) {
    await mkdir(join(latestPointer(name, lab), '..'), { recursive: true });
    await writeFile(latestPointer(name, lab), `${tag}\n`);
  }
  return { name, tag, archive, sha256: await sha256Of(archive) };
}

/** The tag of the last image of `name` this cache received (for `lab`, or for any lab), if it still holds it. */
export async function latestCachedTag(name: string, lab?: string): Promise<string | undefined> {
  const tag = (await readFile(latestPointer(name, lab), 'utf8').catch(() => '')).trim();
  return tag && existsSync(join(toolCacheDir(tag), ARCHIVE)) ? tag : undefined;
}

/** Builds a tool image once on the controller (root, mmdebstrap); every host loads the same bytes. */
export async function ensureToolImage(name: string, log: HostLog, onBuild?: () => void): Promise<ToolImage> {
  const tag = await toolImageTag(name, await controllerSources());
  const dir = toolCacheDir(tag);
  // The same sources text on a lab host gives the same tag: build our own rather than run a host's.
  if (existsSync(join(dir, BUILT_ON_HOST))) await rm(dir, { recursive: true, force: true });
  await ensureBuilt(dir, ARCHIVE, async () => {
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
    const archive = join(dir, ARCHIVE);
    const packed = await runLocal('zstd', ['-q', '-3', '-T0', '--rm', '-f', tarball, '-o', `${archive}.tmp`], { log });
    if (packed.code !== 0) throw new LabError(`compressing tool image ${name} failed: ${packed.stderr.trim()}`);
    await runLocal('mv', [`${archive}.tmp`, archive]);
    await rm(tarball, { force: true });
  });
  const image = await cachedToolImage(name, tag);
  if (!image) throw new LabError(`tool image ${name}: ${dir} holds no ${ARCHIVE} after its build`);
  return image;
}
