/**
 * How the local target boots a Flatcar host from the QEMU image the user
 * supplies (a host's `image:`; checked by flatcar-image.ts at validation):
 *
 * - root disk: a qcow2 overlay in the host's folder whose backing file is the
 *   user's image. QEMU opens a backing file read-only, so the user's file is
 *   never written; `down` removes the host's folder (the overlay), never the
 *   image, which layerlab did not create.
 * - first-boot configuration: the Ignition config the AWS program generates
 *   (infra/aws/user-data.ts, one generator), with the lab's host key and the
 *   hostname added, handed over through QEMU's firmware configuration device
 *   under the name Flatcar's Ignition reads on QEMU (flatcar/ignition
 *   doc/supported-platforms.md: "QEMU - Ignition will read its configuration
 *   from the 'opt/org.flatcar-linux/config' key on the QEMU Firmware
 *   Configuration Device"). It replaces the Debian guests' seed disk.
 * - the data disk, network and SSH contract are the Debian guests' (qemu.ts):
 *   a raw disk with serial lldata, ssh on a 127.0.0.1 forward only, the host
 *   key made here and pinned before the first connection; the login is
 *   Flatcar's `core` user with sudo, as on AWS.
 *
 * Not booted on the development machine: no Flatcar image can be downloaded there.
 */
import { join } from 'node:path';
import { FLATCAR_USER, flatcarIgnition } from '../../../infra/aws/user-data.js';
import { PROFILES, type ProfileName } from '../../catalog.js';
import type { HostDefinition } from '../../definition/schema.js';
import { writeSecret } from '../../util/files.js';
import { type UserImageFormat, userImageFormat } from './flatcar-image.js';
import type { GuestImage } from './image.js';
import type { HostKeys } from './seed.js';

/** The fw_cfg name Flatcar's Ignition reads its config from under QEMU. */
export const FLATCAR_FW_CFG_NAME = 'opt/org.flatcar-linux/config';

/** What qemuArgs needs to boot a user's Flatcar image instead of the Debian kernel. */
export interface FlatcarBoot {
  /** The Ignition config file (0600, in the host's folder). */
  ignition: string;
  /** The user's image (absolute path): recorded as the host's image key. */
  image: string;
}

/** The file a root overlay is made on: the user's image for a host that names one, else the Debian guest image. */
export interface RootBacking {
  file: string;
  format: UserImageFormat;
}

export function rootBacking(host: HostDefinition, image: GuestImage): RootBacking {
  return host.image ? { file: host.image, format: userImageFormat(host.image) } : { file: image.base, format: 'raw' };
}

/** The image key a host booted from a user's image records in state.json. */
export function flatcarImageKey(imagePath: string): string {
  return `flatcar:${imagePath}`;
}

export const flatcarFiles = (dir: string) => ({ ignition: join(dir, 'ignition.json') });

/**
 * Writes the host's Ignition config (0600: it holds the host's private key,
 * as the Debian guests' seed.tar does) and returns what qemuArgs needs.
 */
export async function writeFlatcarBoot(dir: string, host: HostDefinition, keys: HostKeys): Promise<FlatcarBoot> {
  if (!host.image) throw new Error(`host ${host.name} names no image: it boots the Debian guest image`);
  const ignition = flatcarFiles(dir).ignition;
  const config = flatcarIgnition(keys.clientPublic, {
    hostname: host.name,
    hostKey: { private: keys.hostPrivate, public: keys.hostPublic },
  });
  await writeSecret(ignition, config);
  return { ignition, image: host.image };
}

/** QEMU's arguments that hand the Ignition config to the guest (commas doubled: QEMU's option syntax). */
export function flatcarQemuArgs(boot: FlatcarBoot): string[] {
  return ['-fw_cfg', `name=${FLATCAR_FW_CFG_NAME},file=${boot.ignition.replaceAll(',', ',,')}`];
}

/** Who the controller logs in as on a local host of `profile`: Flatcar's core (through sudo), else root. */
export function localLoginUser(profile: ProfileName): string {
  return PROFILES[profile].image === 'flatcar' ? FLATCAR_USER : 'root';
}
