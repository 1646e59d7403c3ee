import type { InventoryHost } from '../targets/types.js';
import { HostLog } from '../util/log.js';
import { connectHost } from './connect.js';
import type { SshConnection } from './transport.js';

/**
 * What the run needs from one host: the scheduler and the trial executor see
 * only this, so that retry, reconnect, a dead host, Ctrl-C and a full disk are
 * tested against a fake in seconds (test/unit/run/scheduler.test.ts) and the real
 * one is SSH.
 */
export interface HostSession {
  /** The host's name in the lab. */
  readonly name: string;
  /** Runs a command that must succeed (throws with its stderr tail otherwise). */
  exec(command: string, options?: { stdin?: string; timeoutMs?: number }): Promise<void>;
  /** Sends `entries` of a local folder into `remoteDir` as one tar stream, replacing them there. */
  push(localDir: string, remoteDir: string, entries: string[]): Promise<void>;
  /** Runs a command whose stdout is a tar stream, unpacked safely into `localDir`: how output comes back. */
  pull(command: string, localDir: string, timeoutMs?: number): Promise<void>;
  /** Whether the connection still carries a command. */
  probe(): Promise<boolean>;
  /** Drops the connection and opens a new one, trying until `deadline` (epoch ms); throws when the host does not answer. */
  reconnect(deadline: number): Promise<void>;
  close(): Promise<void>;
}

/** Opens a session to a host, trying until `deadline` (epoch ms). */
export type OpenSession = (host: InventoryHost, deadline: number) => Promise<HostSession>;

/** A HostSession over an SSH connection that is already open (prepare uses its own). */
export function sessionOver(
  conn: Pick<SshConnection, 'endpoint' | 'run' | 'pushDir' | 'pullCommand'>,
): Pick<HostSession, 'name' | 'exec' | 'push' | 'pull'> {
  return {
    name: conn.endpoint.name,
    exec: async (command, options = {}) => {
      await conn.run(command, options);
    },
    push: (localDir, remoteDir, entries) => conn.pushDir(localDir, remoteDir, entries),
    pull: async (command, localDir, timeoutMs) => {
      await conn.pullCommand(command, localDir, timeoutMs);
    },
  };
}

/** The real session: one SSH connection per host for the whole run, its events in `logPath`. */
class SshSession implements HostSession {
  private constructor(
    private readonly host: InventoryHost,
    private readonly log: HostLog,
    private conn: SshConnection | undefined,
  ) {}

  static async open(host: InventoryHost, logPath: string, deadline: number): Promise<SshSession> {
    const log = new HostLog(logPath);
    try {
      return new SshSession(host, log, await connectHost(host, log, deadline));
    } catch (err) {
      await log.close();
      throw err;
    }
  }

  get name(): string {
    return this.host.name;
  }

  private connection(): SshConnection {
    if (!this.conn) throw new Error(`no connection to ${this.host.name}`);
    return this.conn;
  }

  async exec(command: string, options: { stdin?: string; timeoutMs?: number } = {}): Promise<void> {
    await this.connection().run(command, options);
  }

  push(localDir: string, remoteDir: string, entries: string[]): Promise<void> {
    return this.connection().pushDir(localDir, remoteDir, entries);
  }

  async pull(command: string, localDir: string, timeoutMs?: number): Promise<void> {
    await this.connection().pullCommand(command, localDir, timeoutMs);
  }

  probe(): Promise<boolean> {
    return this.conn ? this.conn.probe() : Promise.resolve(false);
  }

  async reconnect(deadline: number): Promise<void> {
    this.conn?.close();
    this.conn = undefined;
    this.conn = await connectHost(this.host, this.log, deadline);
  }

  async close(): Promise<void> {
    this.conn?.close();
    this.conn = undefined;
    await this.log.close();
  }
}

/** Opens SSH sessions whose logs go to `logPath(host)` (the run folder's hosts/<host>/ssh.log). */
export function sshSessions(logPath: (host: string) => string): OpenSession {
  return (host, deadline) => SshSession.open(host, logPath(host.name), deadline);
}
