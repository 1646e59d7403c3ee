import assert from 'node:assert/strict';
import { connectHost } from '../../lab/ssh/connect.ts';
import type { SshConnection } from '../../lab/ssh/transport.ts';
import type { Inventory } from '../../lab/targets/types.ts';
import { HostLog } from '../../lab/util/log.ts';

/** Opens an SSH connection (pinned host key) to a host of `inventory`, runs `use`, closes it; events in `logPath`. */
export async function withHost<T>(
  inventory: Inventory,
  name: string,
  logPath: string,
  use: (conn: SshConnection) => Promise<T>,
): Promise<T> {
  const host = inventory.hosts.find((h) => h.name === name);
  assert.ok(host, `host ${name} is in the inventory`);
  const log = new HostLog(logPath);
  const conn = await connectHost(host, log, Date.now() + 120_000);
  try {
    return await use(conn);
  } finally {
    conn.close();
    await log.close();
  }
}

/** A command's stdout on a host of `inventory` (a non-zero exit throws). */
export function onHost(inventory: Inventory, name: string, command: string, logPath: string): Promise<string> {
  return withHost(inventory, name, logPath, async (conn) => (await conn.run(command)).stdout);
}

/** Static inventory entries for the hosts a provider made (key paths as given, or as `key` maps them). */
export function inventoryEntries(inventory: Inventory, key: (host: string, path: string) => string = (_h, p) => p) {
  return inventory.hosts.map((h) => ({
    name: h.name,
    profile: h.profile,
    address: h.address,
    port: h.port,
    user: h.user,
    key: key(h.name, h.privateKeyPath),
    hostKey: h.hostKey,
    dataDisk: h.dataDisk,
  }));
}
