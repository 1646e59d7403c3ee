import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The hostshare-9p mount kind on the local target: a folder of this machine
 * served by QEMU itself over virtio-9p, the file server libvirt's
 * <filesystem> and many VM tools use. No daemon: the VM process serves it
 * and goes with it. security_model=mapped-xattr keeps the guest's owners and
 * modes in extended attributes of the files here, so a container can chown
 * its data (MariaDB does) whoever runs QEMU, and nothing here is chowned.
 */

/** The tag the guest mounts (guest/lib.sh: ll_hostshare_mount). */
export const NINEP_TAG = 'll9p';

export const ninepFiles = (dir: string) => ({ folder: join(dir, '9p-share') });

/** Creates the shared folder: QEMU refuses to start with a missing one. */
export async function makeNinepFolder(dir: string): Promise<void> {
  await mkdir(ninepFiles(dir).folder, { recursive: true, mode: 0o755 });
}

/** QEMU arguments that attach the folder. */
export function ninepQemuArgs(dir: string): string[] {
  const { folder } = ninepFiles(dir);
  return [
    ...['-fsdev', `local,id=${NINEP_TAG},path=${folder.replaceAll(',', ',,')},security_model=mapped-xattr`],
    ...['-device', `virtio-9p-pci,fsdev=${NINEP_TAG},mount_tag=${NINEP_TAG}`],
  ];
}
