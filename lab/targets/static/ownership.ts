import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_OS_RELEASE } from '../../catalog.js';
import type { LabDefinition } from '../../definition/schema.js';
import { LabError, UserError } from '../../errors.js';
import { GUEST_DIR, labStateDir } from '../../paths.js';
import { labOwnsHost, withGuestLib } from '../../prepare/prepare.js';
import { type ConnectHost, connectHost } from '../../ssh/connect.js';
import { HostLog } from '../../util/log.js';
import { envCommand } from '../../util/shell.js';
import type { Controller } from '../controller.js';
import type { Inventory, InventoryHost } from '../types.js';
import { hostLockProblem } from './host-lock.js';
import { HOST_FACTS_SCRIPT, parseHostFacts, stackProblems } from './stack-check.js';

/** guest/check-host.sh's status for "this host is not the lab's to change". */
const REFUSED = 3;

interface HostProblems {
  /** Another controller's lab drives it (host-lock.ts). */
  lock?: string;
  /** Its release or engine does not fit the profile (stack-check.ts). */
  stack: string[];
  /** It is not the lab's to change (guest/check-host.sh). */
  ownership: string[];
}

/** What stands in the way of preparing one host (both checks read-only), or nothing. */
async function hostProblems(
  lab: LabDefinition,
  host: InventoryHost,
  me: Controller,
  connect: ConnectHost,
): Promise<HostProblems> {
  const log = new HostLog(join(labStateDir(lab.name), 'static', `${host.name}.log`));
  try {
    const conn = await connect(host, log, Date.now() + 60_000);
    try {
      // First: a machine another controller drives is refused for that alone.
      const lock = await hostLockProblem(conn, host, me);
      if (lock) return { lock, stack: [], ownership: [] };
      const facts = await conn.exec('bash -s', { stdin: HOST_FACTS_SCRIPT, timeoutMs: 60_000 });
      const os = lab.hosts.find((h) => h.name === host.name)?.os ?? DEFAULT_OS_RELEASE;
      const stack = stackProblems(parseHostFacts(facts.stdout), host.profile, os);
      if (stack.length) return { stack, ownership: [] };
      const env = {
        LL_PROFILE: host.profile,
        LL_DATA_DISK: host.dataDisk,
        LL_DEDICATED: labOwnsHost('static', host) ? '1' : '0',
      };
      // Sent on stdin: nothing is written on a host before it passes.
      const script = withGuestLib(readFileSync(join(GUEST_DIR, 'check-host.sh'), 'utf8'));
      const result = await conn.exec(envCommand(env, ['bash', '-s']), { stdin: script, timeoutMs: 2 * 60_000 });
      if (result.code === 0) return { stack, ownership: [] };
      if (result.code === REFUSED) return { stack, ownership: result.stdout.trim().split('\n').filter(Boolean) };
      throw new LabError(`checking the host failed (exit ${result.code ?? result.signal}): ${result.stderr.trim()}`, {
        host: host.name,
      });
    } finally {
      conn.close();
    }
  } finally {
    await log.close();
  }
}

/**
 * Before anything changes on any host: a machine that another controller's
 * lab holds (host-lock.ts) is refused (exit 2) naming who and since when.
 * Then a machine whose release or engine does
 * not fit its profile and the lab's `os` is refused (exit 2) naming what it
 * runs and what the profile needs. Then a static machine whose Docker holds
 * anything layerlab did not create (or whose data disk is in use elsewhere)
 * is refused with exit 2, naming host, what was found and the key to set,
 * unless the inventory says it is dedicated to the lab. Hosts whose profile
 * is already in place pass: preparing them changes nothing.
 */
export async function refuseHostsNotTheLabs(
  file: string,
  inventory: Inventory,
  lab: LabDefinition,
  me: Controller,
  connect: ConnectHost = connectHost,
): Promise<void> {
  const found = await Promise.all(
    inventory.hosts.map(async (host) => ({ host, ...(await hostProblems(lab, host, me, connect)) })),
  );
  const held = found.flatMap((f) => (f.lock ? [f.lock] : []));
  if (held.length) {
    throw new UserError(
      `${file}: ${held.length} host(s) are in use by another controller; nothing was changed on any host:\n  ${held.join('\n  ')}`,
    );
  }
  const mismatched = found.filter((f) => f.stack.length > 0);
  if (mismatched.length) {
    const lines = mismatched.map(
      ({ host, stack }) => `host ${host.name} (${host.address}:${host.port}): ${stack.join('; ')}`,
    );
    throw new UserError(
      `${file}: ${mismatched.length} host(s) cannot run their profile as the lab defines it; nothing was changed on any host:\n  ${lines.join('\n  ')}`,
    );
  }
  const refused = found
    .map(({ host, ownership }) => ({ host, problems: ownership }))
    .filter((f) => f.problems.length > 0);
  if (!refused.length) return;
  const lines = refused.map(
    ({ host, problems }) => `host ${host.name} (${host.address}:${host.port}): ${problems.join('; ')}`,
  );
  throw new UserError(
    `${file}: ${refused.length} host(s) are not the lab's to change; nothing was changed on any host:\n  ${lines.join('\n  ')}\n` +
      "If such a machine is the lab's to use, set `dedicated: true` for it in the inventory: layerlab then sets its " +
      '/var/lib/docker, daemon.json and fstab lines aside (nothing is deleted) and `down` puts them back. ' +
      'A data disk in use elsewhere must be fixed in the inventory (dataDisk).',
  );
}
