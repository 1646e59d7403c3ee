import { join } from 'node:path';
import type { LabDefinition } from '../definition/schema.js';
import { enabledScenarios } from '../definition/schema.js';
import { LabError, errorMessage } from '../errors.js';
import { labStateDir } from '../paths.js';
import { prepareHost } from '../prepare/prepare.js';
import { say } from '../run/progress.js';
import { SCENARIOS } from '../scenarios/index.js';
import { connectHost } from '../ssh/connect.js';
import type { Provisioned, TargetDriver, TargetOptions } from '../targets/driver.js';
import { TARGET_DRIVERS } from '../targets/index.js';
import type { Inventory } from '../targets/types.js';
import { type ToolImage, ensureToolImage } from '../toolimages/toolimages.js';
import { HostLog } from '../util/log.js';
import { formatDuration } from '../util/time.js';
import { labLog } from './context.js';

export function toolImageNames(lab: LabDefinition): string[] {
  return [...new Set(enabledScenarios(lab).flatMap((n) => [...SCENARIOS[n].toolImages]))];
}

export async function buildToolImages(lab: LabDefinition, log: HostLog): Promise<ToolImage[]> {
  const images: ToolImage[] = [];
  for (const name of toolImageNames(lab)) {
    images.push(await ensureToolImage(name, log, () => say(`building tool image ${name} from Debian packages (once)`)));
  }
  return images;
}

export function driverFor(lab: LabDefinition): TargetDriver {
  return TARGET_DRIVERS[lab.target.kind];
}

function hostLogFor(lab: LabDefinition) {
  return (host: string) => new HostLog(join(labStateDir(lab.name), 'hosts', `${host}.log`));
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
          provisioned.markPrepared(host.name);
          say(`${host.name}: ready (${host.profile})`);
        } finally {
          conn.close();
        }
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
 * Stands the lab up on its target: hosts created (local: VMs booted in
 * parallel while the tool images build), then every host prepared in parallel.
 */
export async function up(
  lab: LabDefinition,
  labFile: string,
  opts: TargetOptions = {},
  ephemeral = false,
): Promise<Inventory> {
  const started = Date.now();
  const log = labLog(lab.name);
  const driver = driverFor(lab);
  try {
    const [provisioned, images] = await Promise.all([
      driver.provision(lab, labFile, opts, { ephemeral, log, hostLog: hostLogFor(lab), progress: say }),
      buildToolImages(lab, log),
    ]);
    // Cloud hosts also install packages at first boot (cloud-init), which prepare waits for.
    const bootSec = lab.target.kind === 'local' ? lab.target.local.bootTimeoutSec : 20 * 60;
    await prepareHosts(lab, provisioned, images, Date.now() + bootSec * 1000, started);
    say(
      `lab ${lab.name} is up: ${provisioned.inventory.hosts.length} host(s) in ${formatDuration(Date.now() - started)}`,
    );
    return provisioned.inventory;
  } finally {
    await log.close();
  }
}
