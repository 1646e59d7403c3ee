import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
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
/** What a lab host runs around the builder (guest/build-tool-image.sh). */
const HOST_BUILDER = join(GUEST_DIR, 'build-tool-image.sh');
/** The compressed image in each cache folder. */
export const ARCHIVE = 'image.tar.zst';
/**
 * The sha256 of the archive, written by the controller when it stored the
 * archive, after it: its presence says the build finished, and every load
 * from the cache checks the archive's bytes against it.
 */
export const DIGEST = 'image.sha256';

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
 * The tag of a tool image the controller builds: recipe + builder + the
 * controller's own apt sources, all read on the controller.
 */
export async function toolImageTag(name: string, sources: readonly NamedBytes[]): Promise<string> {
  const key = hashNamed([await namedFile(recipePath(name)), await namedFile(BUILDER), ...sources], ['tool-image-v2']);
  return `layerlab/${name}:${key}`;
}

/** A lab host that builds tool images, as the controller knows it (never as the host describes itself). */
export interface HostBuilder {
  lab: string;
  host: string;
  /** The host key pinned in the inventory, which the connection was checked against. */
  hostKey: string;
}

/**
 * The tag of a tool image a lab host builds: recipe + builder + the host's
 * wrapper, as this checkout holds them, and who built it — lab, host name
 * and pinned host key. Nothing the host reports (its apt sources, its
 * package versions) is in it: the controller cannot check what a host put
 * in an image, so the image serves only later runs of that lab on that
 * host, and never another lab or the controller's own builds.
 */
export async function hostBuiltTag(name: string, builder: HostBuilder): Promise<string> {
  const files = await Promise.all([recipePath(name), BUILDER, HOST_BUILDER].map((f) => namedFile(f)));
  const key = hashNamed(files, ['tool-image-host-v1', JSON.stringify([builder.lab, builder.host, builder.hostKey])]);
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

/**
 * Per lab, the tag of each image that lab's last prepare loaded: what a
 * controller that cannot build records in a run's manifest, and what a lab
 * with no host that can build runs. Written only for that lab; there is no
 * pointer shared by all labs, which a host of one lab could move.
 */
const perLabPointers = () => join(cacheRoot(), 'tools', 'latest');
const labPointer = (name: string, lab: string) => join(perLabPointers(), lab, name);

/** The tags every lab's pointer in this cache names (sweep keeps their images). */
export function latestPointedTags(): string[] {
  const files: string[] = [];
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

/** Whether the cache folder of `tag` holds a stored image (archive and the digest recorded with it). */
function isStored(tag: string): boolean {
  const dir = toolCacheDir(tag);
  return existsSync(join(dir, ARCHIVE)) && existsSync(join(dir, DIGEST));
}

/** Records the digest of an archive just stored in `dir`: the last step of storing it. */
export async function recordDigest(dir: string, sha256: string): Promise<void> {
  await writeFile(join(dir, `${DIGEST}.tmp`), `${sha256}\n`, { mode: 0o644 });
  await rename(join(dir, `${DIGEST}.tmp`), join(dir, DIGEST));
}

/**
 * The cached image of `tag`, if it was stored; remembered as `lab`'s. Its
 * archive must still hash to the digest recorded when it was stored: an
 * archive changed since (by hand, by another program, by a damaged disk)
 * is refused, never sent to a host.
 */
export async function cachedToolImage(name: string, tag: string, lab?: string): Promise<ToolImage | undefined> {
  if (!isStored(tag)) return undefined;
  const dir = toolCacheDir(tag);
  const archive = join(dir, ARCHIVE);
  const digestFile = join(dir, DIGEST);
  const recorded = (await readFile(digestFile, 'utf8')).trim();
  const actual = await sha256Of(archive);
  if (recorded !== actual) {
    throw new LabError(
      `tool image ${tag}: ${archive} hashes to ${actual}, but ${digestFile} (written when it was stored) says ${/^[0-9a-f]{64}$/.test(recorded) ? recorded : JSON.stringify(recorded.slice(0, 80))}: the archive changed in the cache. Fix: remove ${dir} and run again to build it anew`,
      { phase: 'tool-image' },
    );
  }
  if (lab) {
    await mkdir(join(labPointer(name, lab), '..'), { recursive: true });
    await writeFile(labPointer(name, lab), `${tag}\n`);
  }
  return { name, tag, archive, sha256: actual };
}

/**
 * The tag of the image of `name` a lab with no host that can build runs:
 * the one this lab's last prepare loaded, else the controller's own build
 * (a root run of this machine made it), if the cache holds it.
 */
export async function cachedTagForLab(name: string, lab: string): Promise<string | undefined> {
  const loaded = await latestCachedTag(name, lab);
  if (loaded) return loaded;
  const sources = await controllerSources().catch(() => []);
  if (sources.length === 0) return undefined;
  const own = await toolImageTag(name, sources);
  return isStored(own) ? own : undefined;
}

/** The tag of the last image of `name` that `lab`'s prepare loaded, if the cache still holds it. */
export async function latestCachedTag(name: string, lab: string): Promise<string | undefined> {
  const tag = (await readFile(labPointer(name, lab), 'utf8').catch(() => '')).trim();
  return tag && isStored(tag) ? tag : undefined;
}

/** Builds a tool image once on the controller (root, mmdebstrap); every host loads the same bytes. */
export async function ensureToolImage(
  name: string,
  log: HostLog,
  lab: string,
  onBuild?: () => void,
): Promise<ToolImage> {
  const tag = await toolImageTag(name, await controllerSources());
  const dir = toolCacheDir(tag);
  // The same sources text on a lab host gives the same tag: build our own rather than run a host's.
  if (existsSync(join(dir, BUILT_ON_HOST))) await rm(dir, { recursive: true, force: true });
  await ensureBuilt(dir, DIGEST, async () => {
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
    await rename(`${archive}.tmp`, archive);
    await rm(tarball, { force: true });
    await recordDigest(dir, await sha256Of(archive));
  });
  const image = await cachedToolImage(name, tag, lab);
  if (!image)
    throw new LabError(`tool image ${name}: ${dir} holds no ${ARCHIVE} after its build; remove ${dir} and run again`);
  return image;
}
