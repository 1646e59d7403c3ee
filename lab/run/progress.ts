import { formatDuration } from '../util/time.js';

/**
 * Progress for long runs: which host and trial, done/left, elapsed and ETA.
 * Lines go to stderr (stdout stays for results); on a terminal the current
 * trial is also shown on a live status line.
 */
export class Progress {
  private readonly started = Date.now();
  private done = 0;
  private failed = 0;
  private readonly tty = process.stderr.isTTY === true;

  constructor(
    private readonly total: number,
    /** Seconds per trial expected before any trial finished. */
    private readonly expectedPerTrial: number,
    private readonly parallelism: number,
  ) {}

  private eta(): string {
    const left = this.total - this.done;
    const elapsed = Date.now() - this.started;
    const perTrial = this.done > 0 ? elapsed / this.done : (this.expectedPerTrial * 1000) / this.parallelism;
    return formatDuration(left * perTrial);
  }

  private counts(): string {
    return `[${this.done}/${this.total}${this.failed ? `, ${this.failed} failed` : ''}]`;
  }

  start(host: string, trial: string): void {
    const line = `${this.counts()} ${host}: ${trial}  elapsed ${formatDuration(Date.now() - this.started)}  ETA ${this.eta()}`;
    if (this.tty) process.stderr.write(`\r\x1b[2K${line}`);
    else process.stderr.write(`${line}\n`);
  }

  finish(host: string, trial: string, ok: boolean, detail: string): void {
    this.done++;
    if (!ok) this.failed++;
    if (this.tty) process.stderr.write('\r\x1b[2K');
    process.stderr.write(`${this.counts()} ${host}: ${trial} ${ok ? 'done' : 'FAILED'} ${detail}\n`);
  }
}

export function say(message: string): void {
  process.stderr.write(`layerlab: ${message}\n`);
}
