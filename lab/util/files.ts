import {
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
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

/**
 * writeFileAtomic without awaiting: written and synced beside `path`, renamed
 * over it, and the folder synced so the rename survives a power cut. On a
 * failure the temporary file is removed and the error is the one that stopped
 * the write.
 */
export function writeFileAtomicSync(path: string, data: string | Uint8Array, mode = 0o644): void {
  const tmp = `${path}.tmp-${process.pid}`;
  const bytes =
    typeof data === 'string' ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let made = false;
  let done = false;
  try {
    const fd = openSync(tmp, 'w', mode);
    made = true;
    try {
      writeAllSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    done = true;
  } finally {
    if (made && !done) unlinkSync(tmp);
  }
  const dirFd = openSync(dirname(path), 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

export async function writeJson(path: string, value: unknown): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Writes all of `buffer` at the end of `fd`: writeSync may write less than
 * asked (a full disk, a signal), and a short write ignored is a torn line.
 * A write that makes no progress throws the real error (ENOSPC included).
 */
function writeAllSync(fd: number, buffer: Buffer): void {
  let written = 0;
  while (written < buffer.length) {
    const n = writeSync(fd, buffer, written, buffer.length - written);
    if (n <= 0) {
      const err: NodeJS.ErrnoException = new Error(`wrote ${written} of ${buffer.length} bytes: no progress`);
      err.code = 'ENOSPC';
      throw err;
    }
    written += n;
  }
}

/**
 * Where the last complete line of `fd` ends: bytes after it are a line torn
 * by a crash or a full disk (every append ends with a newline).
 */
function completeLength(fd: number): number {
  const size = fstatSync(fd).size;
  const chunk = Buffer.alloc(4096);
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - chunk.length);
    const n = readSync(fd, chunk, 0, end - start, start);
    const at = chunk.subarray(0, n).lastIndexOf(0x0a);
    if (at >= 0) return start + at + 1;
    end = start;
  }
  return 0;
}

/**
 * Append one line and fsync: the journal must survive a crash right after a
 * trial. A torn line left by an earlier crash is cut first, so the new line
 * starts a line of its own instead of gluing onto half a record.
 */
export function appendLineSync(path: string, line: string): void {
  const fd = openSync(path, 'a+', 0o644);
  try {
    const size = fstatSync(fd).size;
    const complete = size > 0 ? completeLength(fd) : 0;
    if (complete < size) ftruncateSync(fd, complete);
    writeAllSync(fd, Buffer.from(`${line}\n`));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Why a line of an NDJSON file was skipped, for a warning. */
export type NdjsonWarn = (message: string) => void;

/**
 * Parses NDJSON text read from `file`. A torn LAST line (no newline after it:
 * a crash or a full disk mid-append) is skipped with a warning naming the
 * file; any other bad line is an error "<file>:<line>: <why>". `check`
 * validates a parsed line (a zod schema's parse); what it throws is reported
 * as "<file>:<line>: ...", for every line, the last included.
 */
export function parseNdjson<T>(
  text: string,
  file: string,
  warn: NdjsonWarn,
  check: (value: unknown) => T = (value) => value as T,
): T[] {
  const lines = text.split('\n');
  const out: T[] = [];
  lines.forEach((line, index) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      const torn = index === lines.length - 1; // no newline after it
      const why = err instanceof Error ? err.message : String(err);
      if (!torn) {
        throw new NdjsonError(
          `${file}:${index + 1}: not a JSON line (${why}); only a torn last line is skipped: fix or remove this one`,
        );
      }
      warn(`${file}:${index + 1}: ignoring a torn last line (an interrupted write): ${why}`);
      return;
    }
    try {
      out.push(check(value));
    } catch (err) {
      throw new NdjsonError(`${file}:${index + 1}: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
  return out;
}

/** A bad line inside an NDJSON file, named by file and line. */
export class NdjsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NdjsonError';
  }
}

export async function writeSecret(path: string, data: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, data, { mode: 0o600 });
}

/**
 * The last `lines` lines of a file, read from at most its last `maxBytes`
 * (a VM's console log can be large); '' when the file is missing.
 */
export function tailLines(path: string, lines: number, maxBytes = 64 * 1024): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return '';
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const text = buffer.toString('utf8').replace(/\r/g, '');
    // A cut first line is dropped unless the whole file fit.
    const all = text.split('\n');
    const whole = length === size ? all : all.slice(1);
    return whole
      .filter((l) => l.trim() !== '')
      .slice(-lines)
      .join('\n');
  } finally {
    closeSync(fd);
  }
}
