import { readFile } from 'node:fs/promises';
import type { InventoryHost } from '../targets/types.js';
import type { HostLog } from '../util/log.js';
import { SshConnection } from './transport.js';

/** What drivers use of an open connection (SshConnection; a fake host in tests). */
export type HostConnection = Pick<SshConnection, 'endpoint' | 'exec' | 'run' | 'pushDir' | 'pullCommand' | 'close'>;

/** How a driver opens connections: connectHost, or a fake host in tests. */
export type ConnectHost = (host: InventoryHost, log: HostLog, deadline: number) => Promise<HostConnection>;

/** Connects to an inventory host with its key file and pinned host key. */
export async function connectHost(host: InventoryHost, log: HostLog, deadline: number): Promise<SshConnection> {
  const privateKey = await readFile(host.privateKeyPath, 'utf8');
  return SshConnection.connect(
    { name: host.name, address: host.address, port: host.port, user: host.user, privateKey, hostKey: host.hostKey },
    log,
    deadline,
  );
}
