/**
 * targets/aws/driver: the controller pins each host's key from its serial
 * console before it returns the stack's inventory, keeps the pin, checks SSH
 * against it, and refuses a stack inventory that carries host keys instead of
 * instance ids (issue 12, finding 11; the console is a fake,
 * console-fixture.ts, the SSH server ssh2's on 127.0.0.1). And without the
 * Pulumi CLI (as on every development machine here) each path that would
 * start `pulumi` stops with the message that says what to install, exit 2,
 * before anything is created or read.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import ssh2 from 'ssh2';
import { parseLabDefinition } from '../../../../lab/definition/load.ts';
import { UserError } from '../../../../lab/errors.ts';
import { connectHost } from '../../../../lab/ssh/connect.ts';
import { awsDriver, inventoryFromStack } from '../../../../lab/targets/aws/driver.ts';
import type { ProvisionHooks } from '../../../../lab/targets/driver.ts';
import { readableKeyPair } from '../../../../lab/targets/local/seed.ts';
import { HostLog } from '../../../../lab/util/log.ts';
import { debianConsole, hostKeyLine } from './console-fixture.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-aws-driver-'));
// The driver keeps pinned keys under LAYERLAB_HOME; read at call time.
process.env.LAYERLAB_HOME = join(work, 'home');
after(() => rmSync(work, { recursive: true, force: true }));

describe('the AWS driver pins host keys from the serial console', () => {
  it('the controller pins each key from the console before returning the inventory, and keeps it', async () => {
    const keys = { 'i-0a': hostKeyLine(), 'i-0b': hostKeyLine() };
    const host = (name: string, instanceId: string) => ({
      name,
      profile: 'overlay2-xfs',
      address: '198.51.100.7',
      port: 22,
      user: 'root',
      instanceId,
      dataDisk: '/dev/nvme1n1',
      labels: {},
    });
    const outputs = {
      inventory: {
        value: { target: 'aws', lab: 'pin', runId: 'r', expiresAt: 'x', hosts: [host('a', 'i-0a'), host('b', 'i-0b')] },
      },
      sshPrivateKey: { value: readableKeyPair('test').private },
    };
    const read: string[] = [];
    const progress: string[] = [];
    const inventory = await inventoryFromStack('pin', outputs, {
      readConsole: async (id) => {
        read.push(id);
        return debianConsole(keys[id as keyof typeof keys]);
      },
      progress: (m) => progress.push(m),
      pollMs: 1,
    });
    assert.deepEqual(
      inventory.hosts.map((h) => [h.name, h.hostKey]),
      [
        ['a', keys['i-0a']],
        ['b', keys['i-0b']],
      ],
    );
    assert.deepEqual(read.sort(), ['i-0a', 'i-0b']);
    assert.ok(
      progress.some((m) => /a: host key pinned \(SHA256:[A-Za-z0-9+/]{43}\)/.test(m)),
      `progress shows the fingerprint: ${progress.join(' | ')}`,
    );
    const saved = JSON.parse(
      readFileSync(join(process.env.LAYERLAB_HOME ?? '', 'labs', 'pin', 'aws', 'inventory.json'), 'utf8'),
    ) as { hosts: { hostKey: string }[] };
    assert.equal(saved.hosts[0]?.hostKey, keys['i-0a']);

    // Later reads of the same instances keep the pin: a console that now shows another key changes nothing.
    read.length = 0;
    const again = await inventoryFromStack('pin', outputs, {
      readConsole: async (id) => {
        read.push(id);
        return debianConsole(hostKeyLine());
      },
      progress: () => {},
    });
    assert.equal(again.hosts[0]?.hostKey, keys['i-0a']);
    assert.deepEqual(read, [], 'pinned keys are not read again');
  });

  it('the pinned key is what SSH checks: the host that printed it is reached, another key is refused', async () => {
    // A stand-in sshd on 127.0.0.1 with its own host key, accepting any client key.
    const real = readableKeyPair('stand-in');
    const server = new ssh2.Server({ hostKeys: [real.private] }, (client) => {
      client.on('authentication', (ctx) => ctx.accept());
      client.on('error', () => {});
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const stackHost = (instanceId: string) => ({
        name: instanceId,
        profile: 'overlay2-xfs',
        address: '127.0.0.1',
        port,
        user: 'root',
        instanceId,
        dataDisk: '/dev/nvme1n1',
        labels: {},
      });
      const outputs = (instanceId: string) => ({
        inventory: { value: { target: 'aws', hosts: [stackHost(instanceId)] } },
        sshPrivateKey: { value: readableKeyPair('operator').private },
      });
      const log = new HostLog(join(work, 'ssh.log'));
      const deadline = () => Date.now() + 10_000;

      const honest = await inventoryFromStack('e2e', outputs('i-0honest'), {
        readConsole: async () => debianConsole(real.public.trim()),
        progress: () => {},
      });
      const host = honest.hosts[0];
      assert.ok(host, 'one host');
      const conn = await connectHost(host, log, deadline());
      conn.close();

      const forged = await inventoryFromStack('e2e', outputs('i-0forged'), {
        readConsole: async () => debianConsole(hostKeyLine()),
        progress: () => {},
      });
      const wrong = forged.hosts[0];
      assert.ok(wrong, 'one host');
      await assert.rejects(connectHost(wrong, log, deadline()), /does not match the pinned key; refusing to connect/);
      await log.close();
    } finally {
      server.close();
    }
  });

  it('a stack inventory from before the fix (host keys, no instance ids) is refused, not trusted', async () => {
    const outputs = {
      inventory: {
        value: {
          target: 'aws',
          hosts: [
            {
              name: 'old',
              profile: 'overlay2-xfs',
              address: '198.51.100.9',
              port: 22,
              user: 'root',
              hostKey: hostKeyLine(),
              dataDisk: '/dev/x',
              labels: {},
            },
          ],
        },
      },
      sshPrivateKey: { value: 'k' },
    };
    await assert.rejects(
      inventoryFromStack('old', outputs, { readConsole: async () => '', progress: () => {} }),
      /no instance id for host old .*layerlab up --target aws/,
    );
  });
});

const ROOT = resolve(import.meta.dirname, '..', '..', '..', '..');
const LAB_FILE = join(ROOT, 'labs', 'aws-nightly.yaml');
const lab = parseLabDefinition(readFileSync(LAB_FILE, 'utf8'), LAB_FILE);

function noPulumi(err: unknown): boolean {
  return (
    err instanceof UserError &&
    err.exitCode === 2 &&
    /needs the Pulumi CLI \(`pulumi` on PATH\), which is not installed here; nothing was created/.test(err.message) &&
    /get\.pulumi\.com/.test(err.message)
  );
}

describe('targets/aws/driver without the Pulumi CLI', () => {
  const saved = { PATH: process.env.PATH, HOME: process.env.LAYERLAB_HOME };
  const empty = mkdtempSync(join(tmpdir(), 'layerlab-no-pulumi-'));
  before(() => {
    process.env.PATH = empty;
    process.env.LAYERLAB_HOME = join(empty, 'state');
  });
  after(() => {
    process.env.PATH = saved.PATH;
    if (saved.HOME === undefined) Reflect.deleteProperty(process.env, 'LAYERLAB_HOME');
    else process.env.LAYERLAB_HOME = saved.HOME;
    rmSync(empty, { recursive: true, force: true });
  });

  it('preflight, provision, attach --stack and down each say what to install', async () => {
    const progress: string[] = [];
    const hooks = { progress: (m: string) => progress.push(m) } as unknown as ProvisionHooks;
    await assert.rejects(awsDriver.preflight(lab, { sshCidrs: ['203.0.113.7/32'] }), noPulumi, 'preflight');
    await assert.rejects(awsDriver.provision(lab, LAB_FILE, {}, hooks), noPulumi, 'provision');
    await assert.rejects(awsDriver.attach(lab, { stack: 'nightly' }), noPulumi, 'attach --stack');
    await assert.rejects(
      awsDriver.down(lab, {}, (m) => progress.push(m)),
      noPulumi,
      'down',
    );
    assert.deepEqual(progress, [], 'nothing started');
  });
});
