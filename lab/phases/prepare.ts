import { join } from 'node:path';
import { PROFILES, type TargetKind } from '../catalog.js';
import type { LabDefinition } from '../definition/schema.js';
import { enabledScenarios } from '../definition/schema.js';
import { LabError, UserError, errorMessage } from '../errors.js';
import { cacheRoot } from '../paths.js';
import { labOwnsHost, prepareHost, pushGuestFiles } from '../prepare/prepare.js';
import { SCENARIOS } from '../scenarios/index.js';
import { connectHost } from '../ssh/connect.js';
import { sessionOver } from '../ssh/session.js';
import type { Provisioned, TargetOptions } from '../targets/driver.js';
import { driverFor } from '../targets/index.js';
import type { Inventory, InventoryHost } from '../targets/types.js';
import { buildOnHost, hostAptSources } from '../toolimages/host-build.js';
import {
  type ToolImage,
  cachedToolImage,
  controllerCannotBuild,
  controllerSources,
  ensureToolImage,
  latestCachedTag,
  toolImageTag,
} from '../toolimages/toolimages.js';
import { type HostLog, say } from '../util/log.js';
import { formatDuration } from '../util/time.js';
import { hostLogFor, labLog } from './logs.js';
import type { ProvisionedLab } from './provision.js';

/** The tool images the lab's enabled scenarios run in, each once. */
export function toolImageNames(lab: LabDefinition): string[] {
  return [...new Set(enabledScenarios(lab).flatMap((n) => [...SCENARIOS[n].toolImages]))];
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

/** Hosts that can build tool images: Debian ones (apt), layerlab's own first (they may install mmdebstrap). */
function builderCandidates(target: TargetKind, hosts: readonly InventoryHost[]): InventoryHost[] {
  const debian = hosts.filter((h) => PROFILES[h.profile].image === 'debian');
  return [...debian.filter((h) => labOwnsHost(target, h)), ...debian.filter((h) => !labOwnsHost(target, h))];
}

/**
 * Refuses, before anything starts (exit 2), a lab whose tool images nobody
 * could build: a controller that cannot, no Debian host in the lab, and an
 * image the cache does not hold.
 */
export async function checkToolImagesObtainable(lab: LabDefinition): Promise<void> {
  const cannot = controllerCannotBuild();
  if (!cannot || lab.hosts.some((h) => PROFILES[h.profile].image === 'debian')) return;
  const missing: string[] = [];
  for (const name of toolImageNames(lab)) if (!(await latestCachedTag(name))) missing.push(name);
  if (missing.length === 0) return;
  throw new UserError(
    `tool image(s) ${missing.join(', ')} cannot be built for lab ${lab.name}: this controller cannot (${cannot}) and the lab has no Debian host to build on (Flatcar has no apt). Fix: run this lab once with a Debian host added, or once on a root Debian controller with mmdebstrap, zstd and Debian 12 apt sources; both fill ${join(cacheRoot(), 'tools')}`,
  );
}

/** Builds (or finds in the cache) on the controller every tool image the lab needs, if the controller can. */
export async function gatherToolImages(lab: LabDefinition, log: HostLog): Promise<LabToolImages> {
  const names = toolImageNames(lab);
  if (controllerCannotBuild()) {
    if (lab.hosts.some((h) => PROFILES[h.profile].image === 'debian')) return { ready: [], onHost: names };
    // No host can build: the cache's latest of each (checkToolImagesObtainable made sure there is one).
    const ready: ToolImage[] = [];
    for (const name of names) {
      const tag = await latestCachedTag(name);
      const image = tag && (await cachedToolImage(name, tag));
      if (!image) throw new UserError(`tool image ${name} is not in ${join(cacheRoot(), 'tools')}`);
      ready.push(image);
    }
    return { ready, onHost: [] };
  }
  const ready: ToolImage[] = [];
  for (const name of names) {
    ready.push(await ensureToolImage(name, log, () => say(`building tool image ${name} from Debian packages (once)`)));
  }
  return { ready, onHost: [] };
}

/**
 * The tool images in `names`, each from the cache when a build with the
 * builder host's apt sources is there, else built on that host: the first
 * candidate that is layerlab's or already has mmdebstrap.
 */
async function toolImagesFromLabHost(
  lab: LabDefinition,
  inventory: Inventory,
  names: readonly string[],
  deadline: number,
): Promise<ToolImage[]> {
  const target = inventory.target;
  const hostLog = hostLogFor(lab);
  for (const host of builderCandidates(target, inventory.hosts)) {
    const hlog = hostLog(host.name);
    const conn = await connectHost(host, hlog, deadline);
    try {
      const owned = labOwnsHost(target, host);
      if (!owned && (await conn.exec('command -v mmdebstrap >/dev/null')).code !== 0) continue;
      await pushGuestFiles(sessionOver(conn));
      const sources = await hostAptSources(conn, join(cacheRoot(), 'tools', `.sources-${process.pid}`));
      const images: ToolImage[] = [];
      for (const name of names) {
        const cached = await cachedToolImage(name, await toolImageTag(name, sources.pieces));
        if (!cached)
          say(
            `${host.name}: building tool image ${name} from Debian packages (the controller cannot: ${controllerCannotBuild()})`,
          );
        images.push(cached ?? (await buildOnHost(conn, name, sources, owned)));
      }
      return images;
    } finally {
      conn.close();
      await hlog.close();
    }
  }
  throw new LabError(
    `no host of lab ${lab.name} can build tool image(s) ${names.join(', ')}: the controller cannot (${controllerCannotBuild()}), and no Debian host is layerlab's (dedicated: true) or has mmdebstrap installed. Fix: mark a static host dedicated, install mmdebstrap on one, or build on a root Debian controller once`,
    { phase: 'tool-image' },
  );
}

/** The content tag of every tool image the lab needs, by name (recorded in a run's manifest). */
export async function currentImageTags(lab: LabDefinition): Promise<Record<string, string>> {
  const tags: Record<string, string> = {};
  const cannot = controllerCannotBuild();
  for (const name of toolImageNames(lab)) {
    // A controller that cannot build runs what the last prepare brought into its cache.
    const tag = cannot ? await latestCachedTag(name) : await toolImageTag(name, await controllerSources());
    if (!tag)
      throw new UserError(`tool image ${name} is not in ${join(cacheRoot(), 'tools')}: run \`layerlab up\` first`);
    tags[name] = tag;
  }
  return tags;
}

/** Applies the profile and loads the tool images on every host not yet prepared, in parallel. */
export async function prepareHosts(
  lab: LabDefinition,
  provisioned: Provisioned,
  toolImages: LabToolImages,
  deadline: number,
  started = Date.now(),
): Promise<void> {
  const hostLog = hostLogFor(lab);
  const { inventory } = provisioned;
  const images = toolImages.onHost.length
    ? [...toolImages.ready, ...(await toolImagesFromLabHost(lab, inventory, toolImages.onHost, deadline))]
    : toolImages.ready;
  const results = await Promise.allSettled(
    inventory.hosts.map(async (host) => {
      if (provisioned.isPrepared(host.name)) return;
      const hlog = hostLog(host.name);
      try {
        const conn = await connectHost(host, hlog, deadline);
        try {
          say(`${host.name}: ssh up after ${formatDuration(Date.now() - started)}; preparing`);
          await prepareHost(conn, host, images, say, { name: lab.name, target: inventory.target });
        } finally {
          conn.close();
        }
        await provisioned.markPrepared(host.name);
        say(`${host.name}: ready (${host.profile})`);
      } finally {
        await hlog.close();
      }
    }),
  );
  const failed = results.flatMap((r, i) =>
    r.status === 'rejected' ? [`${inventory.hosts[i]?.name}: ${errorMessage(r.reason)}`] : [],
  );
  if (failed.length) {
    throw new LabError(`${failed.join('\n')}\n(logs: ${driverFor(lab).stateHint(lab)})`, { phase: 'up' });
  }
}

/**
 * Prepares every host provisioning made, each given the target's boot
 * timeout from now to answer SSH; says when the lab is up.
 */
export async function prepareProvisioned(lab: LabDefinition, provisioned: ProvisionedLab): Promise<Inventory> {
  const { started, images } = provisioned;
  const deadline = Date.now() + driverFor(lab).bootTimeoutSec(lab) * 1000;
  await prepareHosts(lab, provisioned.provisioned, images, deadline, started);
  say(
    `lab ${lab.name} is up: ${provisioned.provisioned.inventory.hosts.length} host(s) in ${formatDuration(Date.now() - started)}`,
  );
  return provisioned.provisioned.inventory;
}

/** The lab's hosts, prepared (targets that do not track it are checked, cheaply). */
export async function attachPrepared(lab: LabDefinition, opts: TargetOptions): Promise<Inventory> {
  await checkToolImagesObtainable(lab);
  const attached = await driverFor(lab).attach(lab, opts);
  if (attached.inventory.hosts.some((h) => !attached.isPrepared(h.name))) {
    const log = labLog(lab.name);
    try {
      await prepareHosts(lab, attached, await gatherToolImages(lab, log), Date.now() + 5 * 60_000);
    } finally {
      await log.close();
    }
  }
  return attached.inventory;
}
