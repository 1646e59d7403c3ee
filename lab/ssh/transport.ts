import { createReadStream } from 'node:fs';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import ssh2, { type Client, type ClientChannel, type ConnectConfig, type ServerHostKeyAlgorithm } from 'ssh2';
import * as tar from 'tar';
import { LabError } from '../errors.js';
import type { HostLog } from '../util/log.js';
import { printable } from '../util/safe-text.js';
import { shellQuote } from '../util/shell.js';
import { sleep } from '../util/time.js';
import { waitForBanner } from './banner.js';
import { extractSafely } from './safe-tar.js';

export interface SshEndpoint {
  /** Host name used in messages and logs. */
  name: string;
  address: string;
  port: number;
  user: string;
  privateKey: string;
  /** Pinned host key, an OpenSSH public-key line ("ssh-ed25519 AAAA... comment"). */
  hostKey: string;
}

export interface ExecOptions {
  timeoutMs?: number;
  /** Bytes or a stream sent to the command's stdin (never logged). */
  stdin?: Buffer | string | Readable;
  /** Where stdout goes instead of being collected (e.g. into a tar extractor). */
  stdout?: Writable;
  /** Log output lines (default true); off for bulk binary streams. */
  logOutput?: boolean;
}

export interface ExecResult {
  code: number | null;
  signal?: string;
  stdout: string;
  stderr: string;
}

const MAX_COLLECTED = 16 * 1024 * 1024;

/** The last lines of a guest's stderr for an error message, stripped of escape sequences (it reaches a terminal). */
export function stderrTail(stderr: string): string {
  return printable(stderr).trim().split('\n').slice(-5).join('\n    ');
}

/** The base64 key blob of an OpenSSH public-key line. */
export function hostKeyBlob(line: string): Buffer {
  const parts = line.trim().split(/\s+/);
  if (parts.length < 2 || !parts[1]) throw new Error(`not an OpenSSH public-key line: ${line.slice(0, 40)}`);
  return Buffer.from(parts[1], 'base64');
}

/**
 * The host-key signature algorithms to offer for a pinned key's type. An RSA
 * key is one key type but three signature algorithms: `ssh-rsa` signs with
 * SHA-1, which OpenSSH servers refuse since 8.8 and which must not vouch for
 * a host; rsa-sha2-512/256 check the same pinned key with SHA-2.
 */
export function hostKeyAlgorithms(hostKeyLine: string): ServerHostKeyAlgorithm[] {
  const keyType = hostKeyLine.trim().split(/\s+/)[0] || 'ssh-ed25519';
  if (keyType === 'ssh-rsa') return ['rsa-sha2-512', 'rsa-sha2-256'];
  return [keyType as ServerHostKeyAlgorithm];
}

/** ssh2's settings for one attempt: the pinned key type only, cheap ciphers, keepalives, `verify` on the host key. */
function clientConfig(endpoint: SshEndpoint, deadline: number, verify: (key: Buffer) => boolean): ConnectConfig {
  return {
    host: endpoint.address,
    port: endpoint.port,
    username: endpoint.user,
    privateKey: endpoint.privateKey,
    readyTimeout: Math.max(5000, Math.min(60_000, deadline - Date.now())),
    keepaliveInterval: 15_000,
    keepaliveCountMax: 4,
    algorithms: {
      // Only the pinned key's type: a server offering another key type is refused, not asked for it.
      serverHostKey: hostKeyAlgorithms(endpoint.hostKey),
      // chacha20 is the cheapest cipher for a guest without AES-NI (TCG).
      cipher: ['chacha20-poly1305@openssh.com', 'aes128-gcm@openssh.com', 'aes128-ctr'],
    },
    hostVerifier: verify,
  };
}

/**
 * One SSH connection to one host: pinned host key (no trust on first use),
 * commands with timeouts and streamed logs, directories pushed and pulled as
 * single tar streams.
 */
export class SshConnection {
  /** False once the connection has closed (dropped, host gone, or closed by us). */
  private open = true;

  private constructor(
    readonly endpoint: SshEndpoint,
    private readonly client: Client,
    private readonly log: HostLog,
  ) {
    client.on('close', () => {
      if (this.open) log.line('ssh connection closed');
      this.open = false;
    });
  }

  get isOpen(): boolean {
    return this.open;
  }

  /** Whether the connection still carries a command (a channel can close before the connection notices). */
  async probe(timeoutMs = 15_000): Promise<boolean> {
    if (!this.open) return false;
    try {
      return (await this.exec('true', { timeoutMs })).code === 0;
    } catch {
      return false;
    }
  }

  /** Connects with retry and backoff until `deadline` (epoch ms); a wrong host key fails at once. */
  static async connect(endpoint: SshEndpoint, log: HostLog, deadline: number): Promise<SshConnection> {
    const where = { host: endpoint.name, phase: 'ssh' };
    const pinned = hostKeyBlob(endpoint.hostKey);
    let attempt = 0;
    let delay = 500;
    let lastError: unknown;
    while (Date.now() < deadline) {
      attempt++;
      try {
        await waitForBanner(endpoint.address, endpoint.port, deadline);
      } catch (err) {
        lastError = err;
        break;
      }
      let keyMismatch = false;
      const client = new ssh2.Client();
      const config = clientConfig(endpoint, deadline, (key) => {
        keyMismatch = !key.equals(pinned);
        return !keyMismatch;
      });
      try {
        await new Promise<void>((resolve, reject) => {
          client.once('ready', resolve);
          client.once('error', reject);
          client.connect(config);
        });
        log.line(`ssh connected to ${endpoint.user}@${endpoint.address}:${endpoint.port} (attempt ${attempt})`);
        client.on('error', (err) => log.line(`ssh error: ${err.message}`));
        return new SshConnection(endpoint, client, log);
      } catch (err) {
        client.end();
        if (keyMismatch) {
          throw new LabError(
            `host key of ${endpoint.address}:${endpoint.port} does not match the pinned key; refusing to connect. If the host was rebuilt, run \`layerlab down\` and \`layerlab up\` again.`,
            where,
          );
        }
        lastError = err;
        log.line(`ssh attempt ${attempt} failed: ${(err as Error).message}`);
        await sleep(delay);
        delay = Math.min(delay * 2, 5000);
      }
    }
    throw new LabError(
      `cannot reach SSH at ${endpoint.address}:${endpoint.port} after ${attempt} attempt(s): ${(lastError as Error | undefined)?.message ?? 'deadline passed'}`,
      where,
    );
  }

  /** Runs a command; rejects on timeout, resolves with its exit code otherwise. */
  exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const { timeoutMs = 10 * 60_000, logOutput = true } = options;
    this.log.line(`$ ${command}`);
    // Guest scripts need root; other logins (Flatcar's core, static machines) go through sudo.
    const remote = this.endpoint.user === 'root' ? command : `sudo -n -- bash -c ${shellQuote(command)}`;
    const started = Date.now();
    return new Promise((resolve, reject) => {
      this.client.exec(remote, (err, channel: ClientChannel) => {
        if (err) {
          reject(new LabError(`cannot start command: ${err.message}`, { host: this.endpoint.name }));
          return;
        }
        let stdout = '';
        let stderr = '';
        let settled = false;
        const timer = setTimeout(() => {
          if (settled) return;
          settled = true;
          this.log.line(`timeout after ${timeoutMs} ms: ${command}`);
          try {
            channel.signal('KILL');
          } catch {
            // the server may not support signals; closing the channel is enough
          }
          channel.close();
          reject(
            new LabError(`command timed out after ${Math.round(timeoutMs / 1000)} s: ${command}`, {
              host: this.endpoint.name,
            }),
          );
        }, timeoutMs);
        if (options.stdout) channel.pipe(options.stdout);
        else
          channel.on('data', (chunk: Buffer) => {
            if (stdout.length < MAX_COLLECTED) stdout += chunk.toString();
            if (logOutput) this.log.output('  |', chunk);
          });
        channel.stderr.on('data', (chunk: Buffer) => {
          if (stderr.length < MAX_COLLECTED) stderr += chunk.toString();
          this.log.output('  !', chunk);
        });
        channel.on('close', (code: number | null, signal?: string) => {
          clearTimeout(timer);
          if (settled) return;
          settled = true;
          this.log.line(`exit ${code ?? signal} after ${Date.now() - started} ms`);
          resolve({ code, signal, stdout, stderr });
        });
        const { stdin } = options;
        if (stdin === undefined) channel.end();
        else if (typeof stdin === 'string' || Buffer.isBuffer(stdin)) channel.end(stdin);
        else {
          stdin.on('error', () => channel.destroy());
          stdin.pipe(channel);
        }
      });
    });
  }

  /** Like exec, but a non-zero exit is an error that quotes stderr. */
  async run(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const result = await this.exec(command, options);
    if (result.code !== 0) {
      const tail = stderrTail(result.stderr);
      throw new LabError(
        `command failed (exit ${result.code ?? result.signal}): ${command}${tail ? `\n    ${tail}` : ''}`,
        { host: this.endpoint.name },
      );
    }
    return result;
  }

  /**
   * Pushes `entries` of a local directory as one tar stream into `remoteDir`,
   * first removing those entries there, so the host holds exactly what was sent.
   */
  async pushDir(localDir: string, remoteDir: string, entries: string[]): Promise<void> {
    const q = shellQuote(remoteDir);
    const old = entries.map((e) => `${q}/${shellQuote(e)}`).join(' ');
    const stream = tar.c({ cwd: localDir, portable: true }, entries) as unknown as Readable;
    await this.run(`rm -rf -- ${old} && mkdir -p -- ${q} && tar -xf - -C ${q} --no-same-owner`, { stdin: stream });
  }

  /** Streams a local file into a remote command's stdin (e.g. `docker import -`). */
  async pipeFile(localPath: string, command: string, timeoutMs?: number): Promise<ExecResult> {
    return this.run(command, { stdin: createReadStream(localPath), timeoutMs });
  }

  /**
   * Runs a command whose stdout is a tar stream (e.g. `tar -cf - -C dir .`),
   * unpacked safely into `localDir`: how trials and env folders come back.
   */
  async pullCommand(command: string, localDir: string, timeoutMs?: number): Promise<string[]> {
    const sink = new PassThrough();
    const feed = new PassThrough();
    sink.pipe(feed);
    const extracting = extractSafely(feed, localDir);
    // If unpacking fails (disk full, a refused member), drain the rest of the
    // stream to nowhere so the remote side finishes instead of blocking.
    extracting.catch(() => {
      sink.unpipe(feed);
      sink.resume();
    });
    // Ends the unpacking of a stream that will not finish: destroying `sink`
    // alone would leave `feed` open (pipe does not pass a destroy on), and the
    // unpacking would wait for its end for ever, as after a timed-out trial.
    const abandon = () => {
      sink.destroy();
      feed.destroy();
      return extracting.catch(() => undefined);
    };
    let result: ExecResult;
    try {
      result = await this.exec(command, { stdout: sink, logOutput: false, timeoutMs });
    } catch (err) {
      await abandon();
      throw err;
    }
    if (result.code !== 0) {
      await abandon();
      const tail = stderrTail(result.stderr);
      throw new LabError(
        `command failed (exit ${result.code ?? result.signal}): ${command}${tail ? `\n    ${tail}` : ''}`,
        {
          host: this.endpoint.name,
        },
      );
    }
    return extracting;
  }

  close(): void {
    // Closed by us, not dropped: the client's 'close' event comes later, when
    // the caller may have closed the host log already.
    this.open = false;
    this.client.end();
  }
}
