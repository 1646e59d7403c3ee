import { type WriteStream, createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * An append-only text log for one host (commands and their streamed output).
 * Nothing secret is written here: keys and stdin payloads never reach it.
 */
export class HostLog {
  private readonly stream: WriteStream;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.stream = createWriteStream(path, { flags: 'a', mode: 0o644 });
  }

  line(text: string): void {
    // Events of a connection can outlive its log (ssh2 reports a close after
    // we ended it): a late line is dropped, never a crash of the controller.
    if (this.stream.writableEnded) return;
    this.stream.write(`${new Date().toISOString()} ${text}\n`);
  }

  /** Raw output chunks, prefixed per line so interleaved stdout/stderr stay readable. */
  output(prefix: string, chunk: Buffer | string): void {
    if (this.stream.writableEnded) return;
    const text = chunk.toString();
    for (const l of text.split('\n')) if (l.length) this.stream.write(`${prefix} ${l}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.stream.end(resolve));
  }
}
