import { type Socket, createConnection } from 'node:net';

type QmpReply = { return?: unknown; error?: { class: string; desc: string }; event?: string };

/**
 * A QEMU Machine Protocol connection (JSON lines over the VM's qmp.sock):
 * what saving and restoring a prepared VM needs — pause, migrate to a file,
 * ask how far it got, resume. One command at a time.
 */
export class Qmp {
  private buffer = '';
  /** Lines that arrived before anyone asked for them (the greeting may). */
  private readonly queue: QmpReply[] = [];
  private waiting: ((reply: QmpReply) => void) | undefined;
  private failure: Error | undefined;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.receive(chunk));
    const fail = (err: Error) => {
      this.failure = err;
      this.waiting?.({ error: { class: 'Disconnected', desc: err.message } });
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('QMP connection closed')));
  }

  /** Connects, reads QEMU's greeting and leaves capabilities negotiation. */
  static async connect(socketPath: string, timeoutMs = 10_000): Promise<Qmp> {
    const socket = createConnection(socketPath);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no QMP answer on ${socketPath}`)), timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    const qmp = new Qmp(socket);
    await qmp.next(); // greeting
    await qmp.execute('qmp_capabilities');
    return qmp;
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      if (!line) continue;
      const reply = JSON.parse(line) as QmpReply;
      // Asynchronous events (STOP, RESUME, MIGRATION...) are not answers.
      if (reply.event) continue;
      const waiting = this.waiting;
      this.waiting = undefined;
      if (waiting) waiting(reply);
      else this.queue.push(reply);
    }
  }

  private next(): Promise<QmpReply> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  /** Runs one command; resolves with its return value, rejects with QEMU's error. */
  async execute<T = unknown>(command: string, args?: Record<string, unknown>): Promise<T> {
    const reply = this.next();
    this.socket.write(`${JSON.stringify(args ? { execute: command, arguments: args } : { execute: command })}\n`);
    const answer = await reply;
    if (answer.error) throw new Error(`QMP ${command}: ${answer.error.desc}`);
    return answer.return as T;
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }
}
