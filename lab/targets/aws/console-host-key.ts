/**
 * The SSH host key of a cloud host, read from its serial console.
 *
 * Why the console: the host generates its own key at first boot, so no
 * private key ever travels in user data (readable through the instance
 * metadata service by any process on the host, and through the EC2 API by
 * anyone with ec2:DescribeInstanceAttribute). Only root writes to the
 * console, and only the account's EC2 API (authenticated, over TLS) reads it
 * back, so the key found there is pinned before the first SSH connection: no
 * trust on first use.
 */
import { InfraError, LabError } from '../../errors.js';
import { sleep as realSleep } from '../../util/time.js';
import { asInfraError } from './infra-error.js';

/** The markers cloud-init's write-ssh-key-fingerprints prints; the Flatcar unit prints the same. */
export const HOST_KEY_BEGIN = '-----BEGIN SSH HOST KEY KEYS-----';
export const HOST_KEY_END = '-----END SSH HOST KEY KEYS-----';

/** The key type pinned: the one the hosts are told to generate. */
export const PINNED_KEY_TYPE = 'ssh-ed25519';

const KEY_LINE = /(?:^|\s)(ssh-ed25519|ecdsa-sha2-nistp(?:256|384|521)|ssh-rsa) ([A-Za-z0-9+/]+={0,2})(?=\s|$)/;

/**
 * Whether a base64 blob is a well-formed public key of `type`: the wire format
 * starts with the type name, and an ed25519 key is exactly 32 bytes. A line cut
 * or mixed with kernel messages on the console fails this, and is not pinned.
 */
function wellFormedKey(type: string, base64: string): boolean {
  const blob = Buffer.from(base64, 'base64');
  if (blob.length < 4 || blob.toString('base64').replace(/=+$/, '') !== base64.replace(/=+$/, '')) return false;
  const nameLength = blob.readUInt32BE(0);
  if (blob.subarray(4, 4 + nameLength).toString('latin1') !== type) return false;
  if (type !== 'ssh-ed25519') return true;
  return blob.length === 4 + nameLength + 4 + 32 && blob.readUInt32BE(4 + nameLength) === 32;
}

/**
 * The public-key lines ("type base64") of every complete BEGIN…END block in
 * console text, one array per block. Lines may carry a syslog prefix
 * ("<14>Dec  1 15:04:12 ec2: "), CRs, and unrelated lines in between.
 */
export function hostKeyBlocks(consoleText: string): string[][] {
  const blocks: string[][] = [];
  let current: string[] | undefined;
  for (const raw of consoleText.split('\n')) {
    const line = raw.replace(/\r/g, '');
    if (line.includes(HOST_KEY_BEGIN)) {
      current = [];
    } else if (line.includes(HOST_KEY_END)) {
      if (current) blocks.push(current);
      current = undefined;
    } else if (current) {
      const key = KEY_LINE.exec(line);
      if (key?.[1] && key[2] && wellFormedKey(key[1], key[2])) current.push(`${key[1]} ${key[2]}`);
    }
  }
  return blocks;
}

/**
 * The host's key of PINNED_KEY_TYPE, or undefined while no complete block
 * has appeared yet. Throws when blocks disagree (a second boot must not
 * swap the key silently) or the block has no such key.
 */
export function pinnedHostKeyFromConsole(
  consoleText: string,
  where: { host: string; instanceId: string },
): string | undefined {
  const blocks = hostKeyBlocks(consoleText);
  if (!blocks.length) return undefined;
  const keys = new Set(blocks.flatMap((b) => b.filter((k) => k.startsWith(`${PINNED_KEY_TYPE} `))));
  if (keys.size === 1) return [...keys][0];
  const what = keys.size
    ? `${keys.size} different ${PINNED_KEY_TYPE} keys`
    : `no well-formed ${PINNED_KEY_TYPE} key between the markers`;
  throw new LabError(
    `the serial console of ${where.instanceId} shows ${what}; refusing to pin a host key. Recreate the host (\`layerlab down\`, then \`layerlab up\`).`,
    { host: where.host, phase: 'host key' },
  );
}

/** Reads an instance's console output as text (decoded). */
export type ConsoleReader = (instanceId: string) => Promise<string>;

export interface WaitForHostKeyOptions {
  host: string;
  instanceId: string;
  read: ConsoleReader;
  timeoutMs: number;
  pollMs: number;
  /** Injected by tests. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** Errors that waiting will not cure: stop at once and say so. */
const FATAL_READ_ERROR =
  /Unauthorized|AccessDenied|AuthFailure|InvalidInstanceID|InvalidClientTokenId|CredentialsProvider/i;

/** Polls the console until the host has printed its key, or the timeout names the host. */
export async function waitForHostKey(opts: WaitForHostKeyOptions): Promise<string> {
  const sleep = opts.sleep ?? realSleep;
  const now = opts.now ?? Date.now;
  const deadline = now() + opts.timeoutMs;
  const where = { host: opts.host, phase: 'host key' };
  let lastError: string | undefined;
  for (;;) {
    let text: string | undefined;
    try {
      text = await opts.read(opts.instanceId);
      lastError = undefined;
    } catch (err) {
      const e = err as Error;
      const message = `${e.name}: ${e.message}`;
      if (FATAL_READ_ERROR.test(message)) {
        // A cloud failure (exit 3) with AWS's code and request id, not a failed benchmark.
        const infra = asInfraError(
          err,
          `host ${opts.host}: cannot read the serial console of ${opts.instanceId}`,
          'the AWS credentials need ec2:GetConsoleOutput',
        );
        if (infra instanceof InfraError) throw infra;
        throw new LabError(
          `cannot read the serial console of ${opts.instanceId} (${message}); the AWS credentials need ec2:GetConsoleOutput`,
          where,
        );
      }
      lastError = message;
    }
    const key = text === undefined ? undefined : pinnedHostKeyFromConsole(text, opts);
    if (key) return key;
    if (now() >= deadline) {
      throw new LabError(
        `host ${opts.host} (${opts.instanceId}) printed no SSH host key to its serial console within ${Math.round(opts.timeoutMs / 1000)} s` +
          `${lastError ? ` (last error: ${lastError})` : ''}; see its console in the EC2 console ("Get system log"), then \`layerlab down\``,
        where,
      );
    }
    await sleep(opts.pollMs);
  }
}
