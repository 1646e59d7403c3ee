import { type WriteStream, createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { printable } from './safe-text.js';

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
    this.stream.write(`${new Date().toISOString()} ${printable(text)}\n`);
  }

  /**
   * Output chunks, prefixed per line so interleaved stdout/stderr stay readable.
   * Guest output is stripped of escape sequences: people read this file with cat and tail -f.
   */
  output(prefix: string, chunk: Buffer | string): void {
    if (this.stream.writableEnded) return;
    const text = printable(chunk.toString().replaceAll('\r\n', '\n'));
    for (const l of text.split('\n')) if (l.length) this.stream.write(`${prefix} ${l}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.stream.end(resolve));
  }
}

/** One line of the controller's own news for the person at the terminal (stderr: stdout carries results). */
export function say(message: string): void {
  process.stderr.write(`layerlab: ${printable(message)}\n`);
}
