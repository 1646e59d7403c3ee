import type { LabDefinition } from '../definition/schema.js';
import { enabledScenarios } from '../definition/schema.js';
import { LabError, errorMessage } from '../errors.js';
import { prepareHost } from '../prepare/prepare.js';
import { SCENARIOS } from '../scenarios/index.js';
import { connectHost } from '../ssh/connect.js';
import type { Provisioned, TargetOptions } from '../targets/driver.js';
import { driverFor } from '../targets/index.js';
import type { Inventory } from '../targets/types.js';
import { type ToolImage, ensureToolImage, toolImageTag } from '../toolimages/toolimages.js';
import { type HostLog, say } from '../util/log.js';
import { formatDuration } from '../util/time.js';
import { hostLogFor, labLog } from './logs.js';
import type { ProvisionedLab } from './provision.js';

/** The tool images the lab's enabled scenarios run in, each once. */
export function toolImageNames(lab: LabDefinition): string[] {
  return [...new Set(enabledScenarios(lab).flatMap((n) => [...SCENARIOS[n].toolImages]))];
}

/** Builds (or finds in the cache) every tool image the lab needs. */
export async function buildToolImages(lab: LabDefinition, log: HostLog): Promise<ToolImage[]> {
  const images: ToolImage[] = [];
  for (const name of toolImageNames(lab)) {
    images.push(await ensureToolImage(name, log, () => say(`building tool image ${name} from Debian packages (once)`)));
  }
  return images;
}

/** The content tag of every tool image the lab needs, by name (recorded in a run's manifest). */
export async function currentImageTags(lab: LabDefinition): Promise<Record<string, string>> {
  const tags: Record<string, string> = {};
  for (const name of toolImageNames(lab)) tags[name] = await toolImageTag(name);
  return tags;
}

/** Applies the profile and loads the tool images on every host not yet prepared, in parallel. */
export async function prepareHosts(
  lab: LabDefinition,
  provisioned: Provisioned,
  images: readonly ToolImage[],
  deadline: number,
  started = Date.now(),
): Promise<void> {
  const hostLog = hostLogFor(lab);
  const { inventory } = provisioned;
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
  const attached = await driverFor(lab).attach(lab, opts);
  if (attached.inventory.hosts.some((h) => !attached.isPrepared(h.name))) {
    const log = labLog(lab.name);
    try {
      await prepareHosts(lab, attached, await buildToolImages(lab, log), Date.now() + 5 * 60_000);
    } finally {
      await log.close();
    }
  }
  return attached.inventory;
}
