import { open, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LabError } from '../errors.js';
import { REMOTE_ROOT } from '../paths.js';
import type { SshConnection } from '../ssh/transport.js';
import { aptSourcesUnder } from '../util/apt-sources.js';
import { ensureBuilt } from '../util/build-cache.js';
import { envCommand, shellQuote } from '../util/shell.js';
import {
  ARCHIVE,
  BUILT_ON_HOST,
  DIGEST,
  type ToolImage,
  cachedToolImage,
  hostBuiltTag,
  readRecipe,
  recordDigest,
  sha256Of,
  toolCacheDir,
} from './toolimages.js';

/**
 * Larger than any tool image (the biggest, mariadb's, is ~45 MB compressed):
 * a bigger archive is refused before it is hashed or cached. (The pull that
 * brings it, like every pull, does not cap what it writes on the way.)
 */
const MAX_ARCHIVE_BYTES = 4 * 1024 ** 3;
const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);

/** A host's apt sources: the paths its builder is given (what they say is the host's business, not the tag's). */
export interface HostSources {
  paths: string[];
}

/**
 * Reads a host's apt sources by pulling its /etc/apt/sources.list{,.d} as a
 * tar (unpacked safely under `scratch`), chosen by the same rule as the
 * controller's own.
 */
export async function hostAptSources(conn: SshConnection, scratch: string): Promise<HostSources> {
  await rm(scratch, { recursive: true, force: true });
  // Regular files only: one symbolic link (a leftover .save) would make the safe unpacking refuse the whole pull.
  const list =
    'set -euo pipefail; cd /; { find etc/apt/sources.list etc/apt/sources.list.d -maxdepth 1 -type f \\( -name sources.list -o -name "*.list" -o -name "*.sources" \\) -print0 2>/dev/null || true; } | tar -cf - --null --files-from -';
  try {
    await conn.pullCommand(`bash -c ${shellQuote(list)}`, scratch);
    const paths = aptSourcesUnder(scratch);
    if (paths.length === 0) {
      throw new LabError('no apt sources in /etc/apt/sources.list{,.d}: this host cannot build tool images', {
        host: conn.endpoint.name,
        phase: 'tool-image',
      });
    }
    return { paths };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * Checks what a host sent back before it lands in the cache: exactly the
 * archive and its sha256, a zstd stream within the size cap, whose bytes
 * hash to what the host said. Returns that sha256. (Not unpacked here: every
 * host's engine does that, and the sha256 is checked again on each of them.)
 */
export async function checkReturnedImage(dir: string, where: { host: string; phase: string }): Promise<string> {
  const names = (await readdir(dir)).sort();
  if (names.join(',') !== `${DIGEST},${ARCHIVE}`) {
    throw new LabError(
      `the tool image build sent back ${names.join(', ') || 'nothing'}, not ${ARCHIVE} and image.sha256`,
      where,
    );
  }
  const archive = join(dir, ARCHIVE);
  const info = await stat(archive);
  if (!info.isFile() || info.size > MAX_ARCHIVE_BYTES)
    throw new LabError(`${ARCHIVE} is not a file under 4 GiB`, where);
  const head = Buffer.alloc(4);
  const fd = await open(archive);
  try {
    await fd.read(head, 0, 4, 0);
  } finally {
    await fd.close();
  }
  if (!head.equals(ZSTD_MAGIC)) throw new LabError(`${ARCHIVE} from the host is not zstd-compressed`, where);
  const claimedFile = join(dir, DIGEST);
  const claimedInfo = await stat(claimedFile);
  const claimed = claimedInfo.isFile() && claimedInfo.size <= 128 ? (await readFile(claimedFile, 'utf8')).trim() : '';
  if (!/^[0-9a-f]{64}$/.test(claimed)) throw new LabError('image.sha256 from the host is not a sha256 in hex', where);
  const actual = await sha256Of(archive);
  if (claimed !== actual) throw new LabError(`${ARCHIVE} hashes to ${actual}, the host said ${claimed}`, where);
  return actual;
}

/**
 * Tool image `name` built on a Debian host of the lab (guest files already
 * pushed) with that host's apt sources: from the cache when this host built
 * it for this lab before, else built there and brought into the cache. The
 * cache entry is chosen by hostBuiltTag, from what the controller knows of
 * the host (lab, name, pinned host key), never from what the host reports.
 * `mayInstall`: the host is layerlab's, so its builder may apt-get install
 * mmdebstrap. `onBuild` is called before a build starts.
 */
export async function buildOnHost(
  conn: SshConnection,
  name: string,
  sources: HostSources,
  mayInstall: boolean,
  lab: string,
  onBuild?: () => void,
): Promise<ToolImage> {
  readRecipe(name); // a malformed recipe is refused here, not after minutes on a host
  const tag = await hostBuiltTag(name, { lab, host: conn.endpoint.name, hostKey: conn.endpoint.hostKey });
  const dir = toolCacheDir(tag);
  const where = { host: conn.endpoint.name, phase: 'tool-image' };
  await ensureBuilt(dir, DIGEST, async () => {
    onBuild?.();
    const incoming = join(dir, 'incoming');
    await rm(incoming, { recursive: true, force: true });
    const build = envCommand({ LL_MAY_INSTALL: mayInstall ? '1' : '0' }, [
      'bash',
      `${REMOTE_ROOT}/guest/build-tool-image.sh`,
      name,
      ...sources.paths,
    ]);
    try {
      await conn.pullCommand(build, incoming, 60 * 60_000);
      const sha256 = await checkReturnedImage(incoming, where);
      await writeFile(
        join(dir, BUILT_ON_HOST),
        `${conn.endpoint.name} ${conn.endpoint.address}:${conn.endpoint.port}\n`,
      );
      await rename(join(incoming, ARCHIVE), join(dir, ARCHIVE));
      await recordDigest(dir, sha256);
    } finally {
      await rm(incoming, { recursive: true, force: true });
    }
  });
  const image = await cachedToolImage(name, tag, lab);
  if (!image)
    throw new LabError(
      `tool image ${name}: no ${ARCHIVE} in ${dir} after the host's build; remove ${dir} and run again`,
      where,
    );
  return image;
}
