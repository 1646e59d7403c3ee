import { captureEnv, pushGuestFiles } from '../prepare/prepare.js';
import type { HostSession } from '../ssh/session.js';
import type { InventoryHost } from '../targets/types.js';

/**
 * The capture-env phase, at the start of every run (and of every resumption):
 * the guest files are refreshed — a host prepared by an older checkout runs
 * today's scripts — and the host's environment lands, checked, in `envDir`.
 */
export async function captureEnvFor(
  session: Pick<HostSession, 'name' | 'exec' | 'push' | 'pull'>,
  host: Pick<InventoryHost, 'dataDisk'>,
  envDir: string,
): Promise<void> {
  await pushGuestFiles(session);
  await captureEnv(session, host, envDir);
}
