import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { checkManifest } from '../collect/manifest-check.js';
import { LabError } from '../errors.js';
import { REMOTE_ROOT } from '../paths.js';
import type { SshConnection } from '../ssh/transport.js';
import { envCommand } from '../util/shell.js';

/** Runs a trial on its host; its output folder comes back on stdout as one tar stream. */
export async function executeTrial(
  conn: SshConnection,
  env: Record<string, string>,
  localDir: string,
  timeoutMs: number,
): Promise<void> {
  // Unpacked beside the final place, checked against the guest's MANIFEST,
  // then renamed: a trial folder is complete and verified, or absent.
  const partial = join(dirname(localDir), '.partial', basename(localDir));
  await rm(partial, { recursive: true, force: true });
  await conn.pullCommand(envCommand(env, ['bash', `${REMOTE_ROOT}/guest/run-trial.sh`]), partial, timeoutMs);
  const problems = await checkManifest(partial);
  if (problems.length) {
    throw new LabError(`pulled files do not match what the guest wrote: ${problems.join('; ')}`, {
      host: conn.endpoint.name,
      trial: basename(localDir),
    });
  }
  // An earlier attempt whose outcome was unknown (a resumed run) is replaced.
  await rm(localDir, { recursive: true, force: true });
  await rename(partial, localDir);
}
