import { readFileSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CONTAINER_NETWORK, PROFILES, type TargetKind } from '../catalog.js';
import { checkManifest } from '../collect/manifest-check.js';
import { LabError } from '../errors.js';
import { GUEST_DIR, PACKAGE_ROOT, REMOTE_ENV, REMOTE_ROOT } from '../paths.js';
import { type HostSession, sessionOver } from '../ssh/session.js';
import type { SshConnection } from '../ssh/transport.js';
import type { InventoryHost } from '../targets/types.js';
import { BUILDER_ENTRY, type ToolImage } from '../toolimages/toolimages.js';
import { envCommand, shellQuote } from '../util/shell.js';

/**
 * Whether the storage profile may set aside what Docker holds on a host: the
 * hosts layerlab made (local VMs, aws instances) always; a static machine
 * only when its inventory says `dedicated: true`. The one place this is decided.
 */
export function labOwnsHost(target: TargetKind, host: Pick<InventoryHost, 'dedicated'>): boolean {
  return target !== 'static' || host.dedicated === true;
}

/**
 * A script for `bash -s` made of guest/lib.sh and `body`: runs guest code on a
 * host before (or without) anything being pushed there.
 */
export function withGuestLib(body: string): string {
  return `${readFileSync(join(GUEST_DIR, 'lib.sh'), 'utf8')}\n${body}\n`;
}

/**
 * Pushes guest/, every scenario folder and the tool image builder to
 * /opt/layerlab as one tar stream,
 * after checking that folder as ll_safe_dir does (root's, 0700, no symlink):
 * root runs what is in it.
 */
export async function pushGuestFiles(host: Pick<HostSession, 'exec' | 'push'>): Promise<void> {
  await host.exec('bash -s', { stdin: withGuestLib(`set -euo pipefail\nll_safe_dir ${shellQuote(REMOTE_ROOT)}`) });
  await host.push(PACKAGE_ROOT, REMOTE_ROOT, ['guest', 'lab/scenarios', BUILDER_ENTRY]);
}

/** Cloud hosts install their packages (and write apt sources) at first boot: waits until cloud-init is done. */
export async function waitForFirstBoot(conn: SshConnection): Promise<void> {
  await conn.run('if command -v cloud-init >/dev/null; then cloud-init status --wait >/dev/null || true; fi', {
    timeoutMs: 20 * 60_000,
  });
}

/**
 * The command that applies a host's storage profile: its data disk, whether
 * the lab owns the host, and the target's container network (lab/catalog.ts
 * CONTAINER_NETWORK: Docker's default bridge on aws, none elsewhere).
 */
export function profileCommand(
  target: TargetKind,
  host: Pick<InventoryHost, 'profile' | 'dataDisk' | 'dedicated'>,
): string {
  return envCommand(
    {
      LL_DATA_DISK: host.dataDisk,
      LL_DEDICATED: labOwnsHost(target, host) ? '1' : '0',
      LL_CONTAINER_NETWORK: CONTAINER_NETWORK[target],
    },
    ['bash', `${REMOTE_ROOT}/guest/${PROFILES[host.profile].script}`],
  );
}

/**
 * Makes a host ready for trials: guest files, the storage profile (idempotent
 * on the host), dockerd with the target's container network, and the tool images.
 */
export async function prepareHost(
  conn: SshConnection,
  host: InventoryHost,
  images: readonly ToolImage[],
  progress: (message: string) => void,
  lab: { name: string; target: TargetKind },
): Promise<void> {
  await waitForFirstBoot(conn);
  await pushGuestFiles(sessionOver(conn));
  progress(`${host.name}: applying profile ${host.profile}`);
  const profile = PROFILES[host.profile];
  await conn.run(profileCommand(lab.target, host), { timeoutMs: 10 * 60_000 });
  for (const image of images) {
    // Asked of the profile's engine: podman keeps its own image store.
    const loadImage = (...args: string[]) =>
      envCommand({ LL_LAB: lab.name, LL_SHA256: image.sha256, LL_ENGINE: profile.engine }, [
        'bash',
        `${REMOTE_ROOT}/guest/load-image.sh`,
        ...args,
        image.tag,
      ]);
    // Already loaded from these very bytes (a second up, a static machine): skip the upload.
    if ((await conn.exec(loadImage('--loaded'))).code === 0) continue;
    progress(`${host.name}: loading tool image ${image.tag}`);
    await conn.pipeFile(image.archive, loadImage(), 15 * 60_000);
  }
}

/**
 * Captures a host's environment (guest/env.sh) into `envDir`: the folder comes
 * back as one tar in the same round trip, is checked against the MANIFEST the
 * guest wrote, like a trial, and only then lands under its final name.
 */
export async function captureEnv(
  conn: Pick<HostSession, 'name' | 'pull'>,
  host: Pick<InventoryHost, 'dataDisk'>,
  envDir: string,
): Promise<void> {
  const capture = envCommand({ LL_DATA_DISK: host.dataDisk }, ['bash', `${REMOTE_ROOT}/guest/env.sh`, REMOTE_ENV]);
  const partial = join(dirname(envDir), `.partial-${basename(envDir)}`);
  await rm(partial, { recursive: true, force: true });
  await conn.pull(`${capture} >&2 && tar -cf - -C ${shellQuote(REMOTE_ENV)} .`, partial);
  const problems = await checkManifest(partial);
  if (problems.length) {
    throw new LabError(`pulled environment does not match what the guest wrote: ${problems.join('; ')}`, {
      host: conn.name,
      phase: 'env',
    });
  }
  await rename(partial, envDir);
}
