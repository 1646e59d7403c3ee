import { closeSync, fsyncSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { mkdir, open, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Write a file so that readers see the old content or the new, never half. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  const handle = await open(tmp, 'w', 0o644);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, path);
}

export function writeFileAtomicSync(path: string, data: string, mode = 0o644): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, data, { mode });
  const fd = openSync(tmp, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

export async function writeJson(path: string, value: unknown): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Append one line and fsync: the journal must survive a crash right after a trial. */
export function appendLineSync(path: string, line: string): void {
  const fd = openSync(path, 'a', 0o644);
  try {
    writeSync(fd, `${line}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export async function writeSecret(path: string, data: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, data, { mode: 0o600 });
}
