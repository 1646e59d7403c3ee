/**
 * Two real QEMU VMs made by the local target's Pulumi dynamic provider (its
 * create and delete called directly, as Pulumi's provider host would), then
 * driven as if they were machines someone already had: `--inventory
 * hosts.yaml` (target static) for up, run and down. Also the first real
 * outing of the overlay2-ext4 and btrfs profiles.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { connectHost } from '../../lab/ssh/connect.ts';
import type { Inventory } from '../../lab/targets/types.ts';
import { HostLog } from '../../lab/util/log.ts';
import { isOurProcess } from '../../lab/util/proc.ts';
import { cliRunner } from './cli.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-static-'));
const stateDir = join(work, 'state');
const resultsDir = join(work, 'results');
// The provider runs in this process: point it at this test's folders first.
process.env.LAYERLAB_HOME = stateDir;
process.env.LAYERLAB_RESULTS = resultsDir;
const { createLocalLab, deleteLocalLab } = await import('../../infra/local/provider.ts');

const LAB = 'pv';
const labFile = join(work, 'pv.yaml');
writeFileSync(
  labFile,
  `name: ${LAB}
seed: 7
hosts:
  - { name: ext4, profile: overlay2-ext4, diskGiB: 2 }
  - { name: btrfs, profile: btrfs, diskGiB: 2 }
scenarios:
  fio: { size: 8M, runtime: 1, ramp: 0, iodepth: 4 }
mounts: [layer, volume, bind]
repetitions: 1
`,
);
const inventoryFile = join(work, 'hosts.yaml');

const layerlab = cliRunner(work, process.env);

const statePath = join(stateDir, 'labs', LAB, 'state.json');
type HostState = { name: string; dir: string; pid?: number };
const vms = (): HostState[] =>
  existsSync(statePath)
    ? Object.values(JSON.parse(readFileSync(statePath, 'utf8')).hosts as Record<string, HostState>)
    : [];
let recorded: HostState[] = [];

after(async () => {
  if (existsSync(statePath)) await layerlab('down', '--name', LAB);
  for (const h of recorded) if (h.pid && isOurProcess(h.pid, h.dir)) process.kill(h.pid, 'SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

async function onHost(inventory: Inventory, name: string, command: string): Promise<string> {
  const host = inventory.hosts.find((h) => h.name === name);
  assert.ok(host, 'host');
  const log = new HostLog(join(work, 'ssh-test.log'));
  const conn = await connectHost(host, log, Date.now() + 60_000);
  try {
    return (await conn.run(command)).stdout;
  } finally {
    conn.close();
    await log.close();
  }
}

describe('static target on VMs from the local dynamic provider', { timeout: 45 * 60_000 }, () => {
  let inventory: Inventory;

  it('provider create boots and prepares the lab (the code `layerlab up` runs)', async () => {
    const definitionHash = createHash('sha256').update(readFileSync(labFile)).digest('hex');
    const outs = await createLocalLab({ labFile, labName: LAB, definitionHash });
    inventory = outs.inventory;
    recorded = vms();
    assert.equal(recorded.length, 2);
    assert.deepEqual(
      inventory.hosts.map((h) => [h.name, h.profile, h.address]),
      [
        ['ext4', 'overlay2-ext4', '127.0.0.1'],
        ['btrfs', 'btrfs', '127.0.0.1'],
      ],
    );
    writeFileSync(
      inventoryFile,
      stringify({
        hosts: inventory.hosts.map((h) => ({
          name: h.name,
          profile: h.profile,
          address: h.address,
          port: h.port,
          user: h.user,
          key: h.privateKeyPath,
          hostKey: h.hostKey,
          dataDisk: h.dataDisk,
        })),
      }),
    );
  });

  it('up --inventory prepares the existing machines (idempotent), creating nothing', async () => {
    // Something of the machine's owner that down must leave alone.
    await onHost(inventory, 'ext4', 'echo mine > /root/owner-file && docker volume create owner-volume >/dev/null');
    const r = await layerlab('up', '--lab', labFile, '--inventory', inventoryFile);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /ext4: ready \(overlay2-ext4\)/);
    assert.match(r.stderr, /btrfs: ready \(btrfs\)/);
    assert.doesNotMatch(r.stderr, /loading tool image/, 'images already there are not sent again');
    assert.deepEqual(
      vms().map((h) => h.pid),
      recorded.map((h) => h.pid),
      'no VM was started or restarted',
    );
  });

  it('run --inventory measures on them, with each profile really in place', async () => {
    const r = await layerlab('run', '--lab', labFile, '--inventory', inventoryFile);
    assert.equal(r.code, 0, r.stderr);
    const [runId] = readdirSync(resultsDir).filter((d) => d.includes(LAB));
    assert.ok(runId, 'runId');
    const dir = join(resultsDir, runId);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    assert.equal(manifest.inventory.target, 'static');
    assert.equal(manifest.lab.target.kind, 'static');
    const samples = readFileSync(join(dir, 'samples.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(samples.length, 2 * 3 * 20, '2 hosts x 3 mounts x 20 fio values');
    assert.deepEqual(new Set(samples.map((s) => s.profile)), new Set(['overlay2-ext4', 'btrfs']));
    const info = (host: string) => readFileSync(join(dir, 'hosts', host, 'env', 'docker-info.txt'), 'utf8');
    assert.match(info('ext4'), /Storage Driver: overlay2/);
    assert.match(info('ext4'), /Backing Filesystem: extfs/);
    assert.match(info('btrfs'), /Storage Driver: btrfs/);
  });

  it('down --inventory removes only what layerlab put there and leaves the machines running', async () => {
    const r = await layerlab('down', '--lab', labFile, '--inventory', inventoryFile);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /cleaned \(machine left running, profile kept\)/);
    for (const h of recorded) assert.ok(h.pid && isOurProcess(h.pid, h.dir), `${h.name} still running`);
    const left = await onHost(
      inventory,
      'ext4',
      'ls /opt/layerlab 2>&1 || true; docker image ls -q "layerlab/*"; docker volume ls -q; cat /root/owner-file; cat /var/lib/layerlab/profile',
    );
    assert.match(left, /No such file or directory/, '/opt/layerlab is gone');
    assert.deepEqual(
      left.split('\n').filter((l) => l && !l.includes('No such file')),
      ['owner-volume', 'mine', 'overlay2-ext4'],
      "no layerlab images or volumes; the owner's file and volume and the profile stay",
    );
  });

  it('provider delete removes the VMs and their disks (the code `layerlab down` runs)', async () => {
    await deleteLocalLab(LAB);
    for (const h of recorded) assert.ok(!(h.pid && isOurProcess(h.pid, h.dir)), `${h.name} stopped`);
    assert.ok(!existsSync(join(stateDir, 'labs', LAB)), 'state folder gone');
  });
});
