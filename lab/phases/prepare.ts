import type { LabDefinition } from '../definition/schema.js';
import { LabError, errorMessage } from '../errors.js';
import { prepareHost } from '../prepare/prepare.js';
import { connectHost } from '../ssh/connect.js';
import type { Provisioned, TargetOptions } from '../targets/driver.js';
import { driverFor } from '../targets/index.js';
import type { Inventory } from '../targets/types.js';
import { say } from '../util/log.js';
import { formatDuration } from '../util/time.js';
import { hostLogFor, labLog } from './logs.js';
import type { ProvisionedLab } from './provision.js';
import {
  type LabToolImages,
  checkToolImagesObtainable,
  gatherToolImages,
  toolImageNames,
  toolImagesFromLabHost,
} from './tool-images.js';

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
  const names = toolImageNames(lab);
  if (inventory.hosts.every((h) => provisioned.isPrepared(h.name, names))) return;
  const building = Date.now();
  const images = toolImages.onHost.length
    ? [...toolImages.ready, ...(await toolImagesFromLabHost(lab, inventory, toolImages.onHost, deadline))]
    : toolImages.ready;
  // A build on a lab host can take many minutes: the other hosts' time to answer starts after it.
  const hostsDeadline = deadline + (Date.now() - building);
  const results = await Promise.allSettled(
    inventory.hosts.map(async (host) => {
      if (provisioned.isPrepared(host.name, names)) return;
      const hlog = hostLog(host.name);
      try {
        const conn = await connectHost(host, hlog, hostsDeadline).catch((err: unknown) => {
          const detail = driverFor(lab).bootFailureDetail?.(lab, host.name);
          throw detail ? new Error(`${errorMessage(err)}; ${detail}`) : err;
        });
        try {
          say(`${host.name}: ssh up after ${formatDuration(Date.now() - started)}; preparing`);
          await prepareHost(conn, host, images, say, { name: lab.name, target: inventory.target });
        } finally {
          conn.close();
        }
        await provisioned.markPrepared(host.name, names);
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
  const names = toolImageNames(lab);
  if (attached.inventory.hosts.some((h) => !attached.isPrepared(h.name, names))) {
    const log = labLog(lab.name);
    try {
      await prepareHosts(lab, attached, await gatherToolImages(lab, log), Date.now() + 5 * 60_000);
    } finally {
      await log.close();
    }
  }
  return attached.inventory;
}
