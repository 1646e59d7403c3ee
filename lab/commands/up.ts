import { join } from 'node:path';
import type { LabDefinition } from '../definition/schema.js';
import { enabledScenarios } from '../definition/schema.js';
import { LabError, errorMessage } from '../errors.js';
import { prepareHost } from '../prepare/prepare.js';
import { say } from '../run/progress.js';
import { connectHost } from '../run/runner.js';
import { SCENARIOS } from '../scenarios/index.js';
import { localUp } from '../targets/local/local.js';
import { labStateDir } from '../targets/local/state.js';
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

/**
 * Stands the lab up: guest image (cached), VMs booted in parallel while the
 * tool images build, then every host prepared in parallel.
 */
export async function up(lab: LabDefinition, labFile: string): Promise<Inventory> {
  const started = Date.now();
  const log = labLog(lab.name);
  const hostLog = (host: string) => new HostLog(join(labStateDir(lab.name), 'hosts', `${host}.log`));
  try {
    const [booted, images] = await Promise.all([
      localUp(lab, labFile, { log, hostLog, progress: say }),
      buildToolImages(lab, log),
    ]);
    const { inventory, store } = booted;
    const deadline = Date.now() + lab.target.local.bootTimeoutSec * 1000;
    const results = await Promise.allSettled(
      inventory.hosts.map(async (host) => {
        if (store.state.hosts[host.name]?.prepared) return;
        const hlog = hostLog(host.name);
        const conn = await connectHost(host, hlog, deadline);
        try {
          say(`${host.name}: ssh up after ${formatDuration(Date.now() - started)}; preparing`);
          await prepareHost(conn, host, images, say);
          store.update(host.name, { prepared: true });
          say(`${host.name}: ready (${host.profile})`);
        } finally {
          conn.close();
          await hlog.close();
        }
      }),
    );
    const failed = results.flatMap((r, i) =>
      r.status === 'rejected' ? [`${inventory.hosts[i]?.name}: ${errorMessage(r.reason)}`] : [],
    );
    if (failed.length) {
      throw new LabError(
        `${failed.join('\n')}\n(logs: ${join(labStateDir(lab.name), 'hosts')}/<host>.log and <host>/console.log)`,
        { phase: 'up' },
      );
    }
    say(`lab ${lab.name} is up: ${inventory.hosts.length} host(s) in ${formatDuration(Date.now() - started)}`);
    return inventory;
  } finally {
    await log.close();
  }
}
