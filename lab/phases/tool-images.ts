import { join } from 'node:path';
import { PROFILES } from '../catalog.js';
import type { HostDefinition, LabDefinition } from '../definition/schema.js';
import { enabledScenarios } from '../definition/schema.js';
import { LabError, UserError, errorMessage } from '../errors.js';
import { cacheRoot } from '../paths.js';
import { labOwnsHost, pushGuestFiles, waitForFirstBoot } from '../prepare/prepare.js';
import { boundScenario } from '../scenarios/index.js';
import { connectHost } from '../ssh/connect.js';
import { sessionOver } from '../ssh/session.js';
import type { SshConnection } from '../ssh/transport.js';
import type { Inventory, InventoryHost } from '../targets/types.js';
import { buildOnHost, hostAptSources } from '../toolimages/host-build.js';
import {
  type ToolImage,
  cachedTagForLab,
  cachedToolImage,
  controllerCannotBuild,
  controllerSources,
  ensureToolImage,
  toolImageTag,
} from '../toolimages/toolimages.js';
import { type HostLog, say } from '../util/log.js';
import { hostLogFor } from './logs.js';

/*
 * Where a lab's tool images come from: the controller builds them when it
 * can (root, mmdebstrap, apt sources); otherwise a Debian host of the lab
 * does, once the hosts answer (an image a host built serves only that lab
 * on that host); a lab with no such host takes what its own last prepare
 * loaded, or the controller's own build, from the cache.
 */

/** The tool images the lab's enabled scenarios run in, each once. */
export function toolImageNames(lab: LabDefinition): string[] {
  return [...new Set(enabledScenarios(lab).flatMap((n) => boundScenario(lab, n).toolImages))];
}

/**
 * The lab's tool images before any host is up: built (or found) on the
 * controller when it can build them; otherwise named in `onHost`, for a
 * Debian host of the lab to build once the hosts answer.
 */
export interface LabToolImages {
  ready: ToolImage[];
  onHost: string[];
}

/**
 * Whether a host of the lab can build tool images: Debian 12 (apt with
 * bookworm's packages; a sources file is used as it is, so a Debian 13 host
 * would build trixie's), not Flatcar.
 */
function canBuildOn(host: HostDefinition): boolean {
  return PROFILES[host.profile].image === 'debian' && host.os === 'debian-12';
}

/** Hosts that can build tool images, layerlab's own first (they may install mmdebstrap). */
function builderCandidates(lab: LabDefinition, inventory: Inventory): InventoryHost[] {
  const builders = new Set(lab.hosts.filter(canBuildOn).map((h) => h.name));
  const able = inventory.hosts.filter((h) => builders.has(h.name));
  const owned = (h: InventoryHost) => labOwnsHost(inventory.target, h);
  return [...able.filter(owned), ...able.filter((h) => !owned(h))];
}

/**
 * Refuses, before anything starts (exit 2), a lab whose tool images nobody
 * could build: a controller that cannot, no Debian host in the lab, and an
 * image the cache does not hold.
 */
export async function checkToolImagesObtainable(lab: LabDefinition): Promise<void> {
  const cannot = controllerCannotBuild();
  if (!cannot || lab.hosts.some(canBuildOn)) return;
  const missing: string[] = [];
  for (const name of toolImageNames(lab)) if (!(await cachedTagForLab(name, lab.name))) missing.push(name);
  if (missing.length === 0) return;
  throw new UserError(
    `tool image(s) ${missing.join(', ')} cannot be built for lab ${lab.name}: this controller cannot (${cannot}) and the lab has no Debian 12 host to build on (Flatcar has no apt). Fix: run this lab once with a Debian 12 host added, or once on a root Debian controller with mmdebstrap, zstd and Debian 12 apt sources; both fill ${join(cacheRoot(), 'tools')}`,
  );
}

/** Builds (or finds in the cache) on the controller every tool image the lab needs, if the controller can. */
export async function gatherToolImages(lab: LabDefinition, log: HostLog): Promise<LabToolImages> {
  const names = toolImageNames(lab);
  if (controllerCannotBuild()) {
    if (lab.hosts.some(canBuildOn)) return { ready: [], onHost: names };
    // No host can build: the cache's image of each for this lab (checkToolImagesObtainable made sure there is one).
    return { ready: await cachedForLab(lab, names), onHost: [] };
  }
  const ready: ToolImage[] = [];
  for (const name of names) {
    ready.push(
      await ensureToolImage(name, log, lab.name, () => say(`building tool image ${name} from Debian packages (once)`)),
    );
  }
  return { ready, onHost: [] };
}

/** The cache's image of each name for this lab (for a lab where no host can build): see cachedTagForLab. */
async function cachedForLab(lab: LabDefinition, names: readonly string[]): Promise<ToolImage[]> {
  const images: ToolImage[] = [];
  for (const name of names) {
    const tag = await cachedTagForLab(name, lab.name);
    const image = tag && (await cachedToolImage(name, tag, lab.name));
    if (!image) throw new UserError(`tool image ${name} is not in ${join(cacheRoot(), 'tools')}`);
    images.push(image);
  }
  return images;
}

/** The images in `names` on one builder host: cached from its earlier build for this lab, else built there. */
async function imagesOnHost(lab: LabDefinition, conn: SshConnection, owned: boolean, names: readonly string[]) {
  await waitForFirstBoot(conn); // cloud-init may still be installing packages and writing apt sources
  await pushGuestFiles(sessionOver(conn));
  const sources = await hostAptSources(conn, join(cacheRoot(), 'tools', `.sources-${process.pid}`));
  const images: ToolImage[] = [];
  for (const name of names) {
    const building = () =>
      say(
        `${conn.endpoint.name}: building tool image ${name} from Debian packages (the controller cannot: ${controllerCannotBuild()})`,
      );
    images.push(await buildOnHost(conn, name, sources, owned, lab.name, building));
  }
  return images;
}

/**
 * The tool images in `names`, each from the cache when the builder host
 * built it for this lab before, else built on that host: the first Debian
 * 12 candidate that is layerlab's or already has mmdebstrap. With no such
 * host, the cache's image for this lab, if it has them.
 */
export async function toolImagesFromLabHost(
  lab: LabDefinition,
  inventory: Inventory,
  names: readonly string[],
  deadline: number,
): Promise<ToolImage[]> {
  const hostLog = hostLogFor(lab);
  for (const host of builderCandidates(lab, inventory)) {
    const hlog = hostLog(host.name);
    try {
      const conn = await connectHost(host, hlog, deadline);
      try {
        const owned = labOwnsHost(inventory.target, host);
        if (!owned && (await conn.exec('command -v mmdebstrap >/dev/null')).code !== 0) continue;
        return await imagesOnHost(lab, conn, owned, names);
      } catch (err) {
        throw new LabError(`building tool images on ${host.name} failed: ${errorMessage(err)} (log: ${hlog.path})`, {
          phase: 'tool-image',
        });
      } finally {
        conn.close();
      }
    } finally {
      await hlog.close();
    }
  }
  const cached = await cachedForLab(lab, names).catch((err: unknown) => {
    if (err instanceof UserError) return undefined; // not in the cache; a changed archive is reported as it is
    throw err;
  });
  if (cached) return cached;
  throw new LabError(
    `no host of lab ${lab.name} can build tool image(s) ${names.join(', ')}, and the cache does not hold them: the controller cannot (${controllerCannotBuild()}), and no Debian 12 host is layerlab's (dedicated: true) or has mmdebstrap installed. Fix: mark a static host dedicated, install mmdebstrap on one, or build them once as root on a Debian controller with this cache (LAYERLAB_CACHE=${cacheRoot()})`,
    { phase: 'tool-image' },
  );
}

/** The content tag of every tool image the lab needs, by name (recorded in a run's manifest). */
export async function currentImageTags(lab: LabDefinition): Promise<Record<string, string>> {
  const tags: Record<string, string> = {};
  const cannot = controllerCannotBuild();
  for (const name of toolImageNames(lab)) {
    // A controller that cannot build runs what this lab's last prepare loaded (or its own earlier build).
    const tag = cannot ? await cachedTagForLab(name, lab.name) : await toolImageTag(name, await controllerSources());
    if (!tag)
      throw new UserError(`tool image ${name} is not in ${join(cacheRoot(), 'tools')}: run \`layerlab up\` first`);
    tags[name] = tag;
  }
  return tags;
}
