/**
 * The Flatcar QEMU image a local host names (`image:` in the lab file): a
 * file the user downloaded, which layerlab reads and never writes or
 * deletes. This module only looks at the file (no QEMU needed), so the lab
 * definition can refuse a wrong one before anything starts.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

export type UserImageFormat = 'qcow2' | 'raw';

/** qcow2's magic: "QFI" and 0xfb (QEMU's docs/interop/qcow2.txt). */
const QCOW2_MAGIC = Buffer.from([0x51, 0x46, 0x49, 0xfb]);

/**
 * First bytes of files that are surely not a raw disk: compressed downloads
 * (Flatcar also publishes `.img.bz2`) and other hypervisors' formats, which
 * QEMU would otherwise boot as raw garbage.
 */
const NOT_RAW: readonly { magic: Buffer; what: string; fix: string }[] = [
  { magic: Buffer.from('BZh'), what: 'bzip2-compressed', fix: 'decompress it first (bunzip2 -k)' },
  { magic: Buffer.from([0x1f, 0x8b]), what: 'gzip-compressed', fix: 'decompress it first (gunzip -k)' },
  {
    magic: Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]),
    what: 'xz-compressed',
    fix: 'decompress it first (unxz -k)',
  },
  { magic: Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), what: 'zstd-compressed', fix: 'decompress it first (unzstd)' },
  { magic: Buffer.from('KDMV'), what: 'a VMDK image', fix: 'convert it (qemu-img convert -O qcow2)' },
  { magic: Buffer.from('vhdxfile'), what: 'a VHDX image', fix: 'convert it (qemu-img convert -O qcow2)' },
  { magic: Buffer.from('<<< '), what: 'a VirtualBox VDI image', fix: 'convert it (qemu-img convert -O qcow2)' },
  { magic: Buffer.from([0x51, 0x45, 0x44, 0x00]), what: 'a QED image', fix: 'convert it (qemu-img convert -O qcow2)' },
];

/**
 * A raw file is taken for a disk only from this size on, in whole 512-byte
 * sectors: Flatcar's layout alone holds two 1 GiB /usr partitions, so
 * anything smaller is some other file, not a Flatcar disk.
 */
export const MIN_RAW_IMAGE_BYTES = 1024 ** 3;

function firstBytes(path: string, count: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(count);
    const read = readSync(fd, buffer, 0, count, 0);
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

export type UserImageCheck = { format: UserImageFormat } | { problem: string };

/** What the file at `path` is as a disk image, or what is wrong with it (said so a person can act). */
export function checkUserImage(path: string): UserImageCheck {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return { problem: `${path} is not a regular file` };
    size = stat.size;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { problem: `${path}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}` };
  }
  let head: Buffer;
  try {
    head = firstBytes(path, 16);
  } catch (err) {
    return { problem: `${path} cannot be read: ${(err as Error).message}` };
  }
  if (head.subarray(0, 4).equals(QCOW2_MAGIC)) return { format: 'qcow2' };
  const known = NOT_RAW.find((k) => head.subarray(0, k.magic.length).equals(k.magic));
  if (known) return { problem: `${path} is ${known.what}, not a qcow2 or raw disk image: ${known.fix}` };
  if (size < MIN_RAW_IMAGE_BYTES || size % 512 !== 0) {
    return {
      problem: `${path} is neither qcow2 nor a plausible raw disk (${size} bytes; a raw Flatcar disk is at least 1 GiB in whole 512-byte sectors)`,
    };
  }
  return { format: 'raw' };
}

/** The format of an image that passed validation; throws what checkUserImage found otherwise. */
export function userImageFormat(path: string): UserImageFormat {
  const check = checkUserImage(path);
  if ('problem' in check) throw new Error(check.problem);
  return check.format;
}

/**
 * Makes every host's `image:` in raw lab data absolute, relative to the lab
 * file's folder (as a person writing the file reads it), before validation
 * looks at the files. Anything that is not a string is left for the schema to refuse.
 */
export function resolveHostImages(data: unknown, labDir: string): void {
  const hosts = (data as { hosts?: unknown } | null)?.hosts;
  if (!Array.isArray(hosts)) return;
  for (const host of hosts) {
    if (host && typeof host === 'object' && typeof (host as { image?: unknown }).image === 'string') {
      const record = host as { image: string };
      if (record.image && !isAbsolute(record.image)) record.image = resolve(labDir, record.image);
    }
  }
}
