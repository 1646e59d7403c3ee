import { printable } from '../util/safe-text.js';
import { formatDuration } from '../util/time.js';

/**
 * Progress for long runs: which host and trial, done/left, elapsed and ETA.
 * Lines go to stderr (stdout stays for results); on a terminal the current
 * trial is also shown on a live status line.
 */
export class Progress {
  private readonly started: number;
  private done = 0;
  private failed = 0;
  /** Expected seconds of the trials finished so far, and of those left. */
  private doneExpected = 0;
  private leftExpected: number;
  private readonly tty = process.stderr.isTTY === true;

  constructor(
    /** Expected seconds of each trial to run, by trial id (the scenarios' own estimates). */
    private readonly expected: ReadonlyMap<string, number>,
    private readonly parallelism: number,
    private readonly now: () => number = Date.now,
  ) {
    this.started = now();
    this.leftExpected = [...expected.values()].reduce((a, b) => a + b, 0);
  }

  private get total(): number {
    return this.expected.size;
  }

  /**
   * What is left, in the scenarios' expected seconds, scaled by how fast the
   * finished trials went against theirs: trials differ by minutes (a
   * lifecycle against a dbench), so a plain mean per trial misleads.
   */
  eta(): string {
    const elapsed = this.now() - this.started;
    const pace = this.doneExpected > 0 ? elapsed / this.doneExpected : 1000 / this.parallelism;
    return formatDuration(this.leftExpected * pace);
  }

  private counts(): string {
    return `[${this.done}/${this.total}${this.failed ? `, ${this.failed} failed` : ''}]`;
  }

  start(host: string, trial: string): void {
    const line = `${this.counts()} ${printable(host)}: ${printable(trial)}  elapsed ${formatDuration(this.now() - this.started)}  ETA ${this.eta()}`;
    if (this.tty) process.stderr.write(`\r\x1b[2K${line}`);
    else process.stderr.write(`${line}\n`);
  }

  finish(host: string, trial: string, ok: boolean, detail: string): void {
    this.done++;
    if (!ok) this.failed++;
    const expected = this.expected.get(trial) ?? 0;
    this.doneExpected += expected;
    this.leftExpected = Math.max(0, this.leftExpected - expected);
    if (this.tty) process.stderr.write('\r\x1b[2K');
    // `detail` can quote a guest (its stderr, a parser's complaint): no escape sequences reach the terminal.
    process.stderr.write(
      `${this.counts()} ${printable(host)}: ${printable(trial)} ${ok ? 'done' : 'FAILED'} ${printable(detail)}\n`,
    );
  }
}
