/**
 * lab/ssh/transport.ts against ssh2 servers on 127.0.0.1.
 *
 * Issue 35 N12: a pinned `ssh-rsa` host key was offered only the SHA-1
 * signature algorithm (`ssh-rsa`), which OpenSSH servers refuse since 8.8 and
 * which should not vouch for a host anyway: servers that allow only SHA-2
 * signatures, or only SHA-1.
 *
 * A pull whose remote command never finishes (a trial stuck on a guest's hung
 * disk) must fail at its timeout, not wait for an archive that will never
 * end: a server whose exec sends a few bytes and then nothing.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import ssh2 from 'ssh2';
import { SshConnection, hostKeyAlgorithms } from '../../../lab/ssh/transport.ts';
import { readableKeyPair } from '../../../lab/targets/local/seed.ts';
import { HostLog } from '../../../lab/util/log.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-transport-'));
const rsaHostKey = ssh2.utils.generateKeyPairSync('rsa', { bits: 2048 });
const clientKey = readableKeyPair('test');
const servers: ssh2.Server[] = [];

/** An SSH server on 127.0.0.1 with an RSA host key that signs only with `algorithms`. */
async function rsaServer(algorithms: ssh2.ServerHostKeyAlgorithm[]): Promise<number> {
  const server = new ssh2.Server({ hostKeys: [rsaHostKey.private], algorithms: { serverHostKey: algorithms } }, (c) => {
    c.on('authentication', (ctx) => ctx.accept());
    c.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return (server.address() as AddressInfo).port;
}

/** An SSH server on 127.0.0.1 (ed25519 host key) whose every command writes the start of a tar header, then hangs. */
async function stuckServer(hostKey: string): Promise<number> {
  const server = new ssh2.Server({ hostKeys: [hostKey] }, (client) => {
    client.on('authentication', (ctx) => ctx.accept());
    client.on('error', () => undefined);
    client.on('ready', () =>
      client.on('session', (accept) =>
        accept().on('exec', (acceptExec) => {
          acceptExec().write(Buffer.alloc(100));
        }),
      ),
    );
  });
  servers.push(server);
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return (server.address() as AddressInfo).port;
}

async function connect(port: number, name: string): Promise<void> {
  const log = new HostLog(join(work, `${name}.log`));
  try {
    const conn = await SshConnection.connect(
      { name, address: '127.0.0.1', port, user: 'root', privateKey: clientKey.private, hostKey: rsaHostKey.public },
      log,
      Date.now() + 8_000,
    );
    conn.close();
  } finally {
    await log.close();
  }
}

after(() => {
  for (const s of servers) s.close();
  rmSync(work, { recursive: true, force: true });
});

describe('pinned RSA host keys', () => {
  it('are checked with SHA-2 signatures only', () => {
    assert.deepEqual(hostKeyAlgorithms(rsaHostKey.public), ['rsa-sha2-512', 'rsa-sha2-256']);
    assert.deepEqual(hostKeyAlgorithms('ssh-ed25519 AAAAC3Nz'), ['ssh-ed25519']);
  });

  it(
    'connect to a server that refuses SHA-1 signatures, as OpenSSH 8.8 and later do',
    { timeout: 30_000 },
    async () => {
      await connect(await rsaServer(['rsa-sha2-512', 'rsa-sha2-256']), 'sha2');
    },
  );

  it('refuse a server that signs only with SHA-1', { timeout: 30_000 }, async () => {
    await assert.rejects(connect(await rsaServer(['ssh-rsa']), 'sha1'));
  });
});

describe('pulls', () => {
  it(
    'a pull that times out fails with the timeout, whatever the archive stream was doing',
    { timeout: 30_000 },
    async () => {
      const hostKey = readableKeyPair('test');
      const log = new HostLog(join(work, 'ssh.log'));
      const conn = await SshConnection.connect(
        {
          name: 'stuck',
          address: '127.0.0.1',
          port: await stuckServer(hostKey.private),
          user: 'root',
          privateKey: clientKey.private,
          hostKey: hostKey.public,
        },
        log,
        Date.now() + 20_000,
      );
      try {
        const started = Date.now();
        await assert.rejects(
          conn.pullCommand('run-a-trial', join(work, 'pulled'), 1000),
          /command timed out after 1 s/,
        );
        assert.ok(Date.now() - started < 10_000, `rejected after ${Date.now() - started} ms`);
      } finally {
        conn.close();
        await log.close();
      }
    },
  );
});
