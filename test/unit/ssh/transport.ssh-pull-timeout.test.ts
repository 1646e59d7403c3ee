/**
 * A pull whose remote command never finishes (a trial stuck on a guest's
 * hung disk) must fail at its timeout, not wait for an archive that will
 * never end. Against a real SSH server (ssh2's) on 127.0.0.1 whose exec
 * sends a few bytes and then nothing.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import ssh2 from 'ssh2';
import { SshConnection } from '../../../lab/ssh/transport.ts';
import { HostLog } from '../../../lab/util/log.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-pull-timeout-'));
const hostKey = ssh2.utils.generateKeyPairSync('ed25519');
const clientKey = ssh2.utils.generateKeyPairSync('ed25519');

const server = new ssh2.Server({ hostKeys: [hostKey.private] }, (client) => {
  client.on('authentication', (ctx) => ctx.accept());
  client.on('error', () => undefined);
  client.on('ready', () =>
    client.on('session', (accept) =>
      accept().on('exec', (acceptExec) => {
        // The start of a tar header, and then silence: the command hangs.
        acceptExec().write(Buffer.alloc(100));
      }),
    ),
  );
});
await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));

after(() => {
  server.close();
  rmSync(work, { recursive: true, force: true });
});

test(
  'a pull that times out fails with the timeout, whatever the archive stream was doing',
  { timeout: 30_000 },
  async () => {
    const log = new HostLog(join(work, 'ssh.log'));
    const conn = await SshConnection.connect(
      {
        name: 'stuck',
        address: '127.0.0.1',
        port: (server.address() as AddressInfo).port,
        user: 'root',
        privateKey: clientKey.private,
        hostKey: hostKey.public,
      },
      log,
      Date.now() + 20_000,
    );
    try {
      const started = Date.now();
      await assert.rejects(conn.pullCommand('run-a-trial', join(work, 'pulled'), 1000), /command timed out after 1 s/);
      assert.ok(Date.now() - started < 10_000, `rejected after ${Date.now() - started} ms`);
    } finally {
      conn.close();
      await log.close();
    }
  },
);
