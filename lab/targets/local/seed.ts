import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import * as tar from 'tar';
import { writeSecret } from '../../util/files.js';
import { removeOwnedChild } from '../../util/owned-dir.js';

export interface HostKeys {
  /** Operator's key to log in (private, OpenSSH format). */
  clientPrivate: string;
  clientPublic: string;
  /** The VM's SSH host key; the public line is what the controller pins. */
  hostPrivate: string;
  hostPublic: string;
}

/**
 * An ed25519 key pair that ssh2 can read back. ssh2's own generator makes a
 * private key its parser refuses ("Malformed OpenSSH private key") about
 * once in 300 (measured: 10 of 3,000); a lab with such a key could never
 * connect, so each key is parsed before it is used and made again if needed.
 */
export function readableKeyPair(comment: string): { private: string; public: string } {
  for (let attempt = 0; attempt < 20; attempt++) {
    const pair = ssh2.utils.generateKeyPairSync('ed25519', { comment });
    if (!(ssh2.utils.parseKey(pair.private) instanceof Error) && !(ssh2.utils.parseKey(pair.public) instanceof Error))
      return pair;
  }
  throw new Error('could not generate an ed25519 key that ssh2 can parse (20 attempts)');
}

export function generateHostKeys(comment: string): HostKeys {
  const client = readableKeyPair(`layerlab-operator@${comment}`);
  const host = readableKeyPair(`layerlab-host@${comment}`);
  return {
    clientPrivate: client.private,
    clientPublic: client.public,
    hostPrivate: host.private,
    hostPublic: host.public,
  };
}

/**
 * Writes the per-VM seed: a plain tar on a raw disk that the image's
 * layerlab-seed.service unpacks at boot, before sshd starts. This is how a
 * host key gets in before boot without mounting anything on the controller.
 */
export async function writeSeedDisk(hostDir: string, hostname: string, keys: HostKeys): Promise<string> {
  const staging = join(hostDir, 'seed');
  await removeOwnedChild(hostDir, 'seed');
  await mkdir(join(staging, 'etc', 'ssh'), { recursive: true });
  await mkdir(join(staging, 'root', '.ssh'), { recursive: true, mode: 0o700 });
  await writeSecret(join(staging, 'etc', 'ssh', 'ssh_host_ed25519_key'), `${keys.hostPrivate.trim()}\n`);
  await writeFile(join(staging, 'etc', 'ssh', 'ssh_host_ed25519_key.pub'), `${keys.hostPublic.trim()}\n`);
  await writeFile(join(staging, 'root', '.ssh', 'authorized_keys'), `${keys.clientPublic.trim()}\n`, {
    mode: 0o600,
  });
  await writeFile(join(staging, 'etc', 'hostname'), `${hostname}\n`);
  const seed = join(hostDir, 'seed.tar');
  await tar.c({ cwd: staging, file: seed, portable: true }, ['etc', 'root']);
  await chmod(seed, 0o600);
  // The host private key now lives only inside seed.tar (0600) and the VM.
  await removeOwnedChild(hostDir, 'seed');
  return seed;
}
