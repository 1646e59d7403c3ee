/**
 * Two real QEMU VMs made by the local target's Pulumi dynamic provider (its
 * create and delete called directly, as Pulumi's provider host would), then
 * driven as if they were machines someone already had: `--inventory
 * hosts.yaml` (target static) for up, run and down. Also the first real
 * outing of the overlay2-ext4 and btrfs profiles. After that first `down`
 * the ext4 VM plays a machine with an owner (issue 12): their container
 * `ll-mine`, volume, image and daemon.json; `up` without `dedicated: true`
 * must refuse (exit 2, nothing changed), with it prepare, and `down` must
 * give the owner everything back.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { stringify } from 'yaml';
import type { Inventory } from '../../lab/targets/types.ts';
import { isOurProcess } from '../../lab/util/proc.ts';
import { cliRunner } from './cli.ts';
import { inventoryEntries, onHost as onLabHost } from './lab-hosts.ts';

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
target: { local: { bootTimeoutSec: 900 } } # test:e2e runs two files at once: a boot may share 2 cores with 4 other VMs
hosts: # one vCPU each: test:e2e has up to five VMs on two cores at once; a cold up costs a third less CPU with one, a run a tenth more (README, Development)
  - { name: ext4, profile: overlay2-ext4, cpus: 1, diskGiB: 2 }
  - { name: btrfs, profile: btrfs, cpus: 1, diskGiB: 2 }
scenarios:
  fio: { size: 8M, runtime: 1, ramp: 0, iodepth: 4 }
mounts: [layer, volume, bind]
repetitions: 1
`,
);
const inventoryFile = join(work, 'hosts.yaml');
// The owner's machine: the ext4 VM alone, as lab pv too (same labels).
const ownerLabFile = join(work, 'pv-owner.yaml');
writeFileSync(
  ownerLabFile,
  `name: ${LAB}
seed: 7
hosts:
  - { name: ext4, profile: overlay2-ext4, diskGiB: 2 }
scenarios:
  fio: { size: 8M, runtime: 1, ramp: 0, iodepth: 4 }
mounts: [layer]
repetitions: 1
`,
);
const ownerInventoryFile = join(work, 'owner-hosts.yaml');

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

const onHost = (inventory: Inventory, name: string, command: string) =>
  onLabHost(inventory, name, command, join(work, 'ssh-test.log'));

/** The owner's own daemon.json (no networking either: containers here run --network none). */
const OWNER_DAEMON_JSON = '{ "bridge": "none", "iptables": false, "labels": ["owner=me"] }';

/** What the owner of the machine would look at: Docker's config, state and contents. */
const OWNER_STATE = `cat /etc/docker/daemon.json; systemctl is-active docker.service || true; systemctl is-enabled docker.service || true
mountpoint /var/lib/docker || true; grep /var/lib/docker /etc/fstab || true
docker ps -a --format '{{.Names}} {{.Image}} {{.Status}}'; docker volume ls -q; docker image ls --format '{{.Repository}}:{{.Tag}}'`;

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
    writeFileSync(inventoryFile, stringify({ hosts: inventoryEntries(inventory) }));
  });

  it('up --inventory prepares the existing machines (idempotent), creating nothing', async () => {
    // Something of the machine's owner that down must leave alone.
    await onHost(inventory, 'ext4', 'echo mine > /root/owner-file');
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
    assert.match(r.stderr, /cleaned \(machine left running\)/);
    assert.match(
      r.stderr,
      /ext4: removed \d+ container\(s\), \d+ volume\(s\), 0 network\(s\), [1-9]\d* image\(s\) labelled layerlab\.lab=pv/,
    );
    for (const h of recorded) assert.ok(h.pid && isOurProcess(h.pid, h.dir), `${h.name} still running`);
    const left = await onHost(
      inventory,
      'ext4',
      'for d in /opt/layerlab /var/lib/layerlab; do [ -e "$d" ] && echo "$d is there"; done; cat /root/owner-file; mountpoint -q /var/lib/docker && echo mounted; grep -c /var/lib/docker /etc/fstab || true',
    );
    assert.deepEqual(
      left.trim().split('\n'),
      ['mine', '0'],
      "layerlab's folders are gone, the owner's file stays, the data disk is unmounted and out of fstab",
    );
  });

  it("an owner's machine: up without dedicated: true refuses (exit 2) and changes nothing", async () => {
    // The machine as its owner keeps it: Docker running with their daemon.json,
    // an image (imported: no registry here), a container named ll-mine, a volume.
    await onHost(
      inventory,
      'ext4',
      `set -euo pipefail
mkdir -p /etc/docker
printf '%s\\n' ${JSON.stringify(OWNER_DAEMON_JSON)} > /etc/docker/daemon.json
systemctl start docker.service
for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
mkdir -p /tmp/owner-image && echo hi > /tmp/owner-image/hello
tar -C /tmp/owner-image -cf - . | docker import - owner/tiny:1 >/dev/null
docker create --name ll-mine --network none owner/tiny:1 /hello >/dev/null
docker volume create owner-data >/dev/null`,
    );
    const before = await onHost(inventory, 'ext4', OWNER_STATE);
    writeFileSync(
      ownerInventoryFile,
      stringify({ hosts: inventoryEntries(inventory).filter((h) => h.name === 'ext4') }),
    );
    const r = await layerlab('up', '--lab', ownerLabFile, '--inventory', ownerInventoryFile);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /host ext4 .*containers: ll-mine/);
    assert.match(r.stderr, /images: owner\/tiny:1/);
    assert.match(r.stderr, /volumes: owner-data/);
    assert.match(r.stderr, /dedicated: true/);
    assert.equal(await onHost(inventory, 'ext4', OWNER_STATE), before, 'nothing changed');
    assert.equal(
      (await onHost(inventory, 'ext4', '[ -e /opt/layerlab ] && echo pushed || echo clean')).trim(),
      'clean',
      'not even the guest files were pushed',
    );
  });

  it("with dedicated: true, up prepares it; down gives the owner's Docker back, ll-mine included", async () => {
    const before = await onHost(inventory, 'ext4', OWNER_STATE);
    writeFileSync(
      ownerInventoryFile,
      stringify({
        hosts: inventoryEntries(inventory)
          .filter((h) => h.name === 'ext4')
          .map((h) => ({ ...h, dedicated: true })),
      }),
    );
    const up = await layerlab('up', '--lab', ownerLabFile, '--inventory', ownerInventoryFile);
    assert.equal(up.code, 0, up.stderr);
    assert.match(up.stderr, /ext4: ready \(overlay2-ext4\)/);
    const prepared = await onHost(
      inventory,
      'ext4',
      `findmnt -n -o FSTYPE /var/lib/docker; docker info --format '{{.Driver}}'; docker ps -aq --filter name=ll-mine | wc -l
printf '%s\\n' ${JSON.stringify(OWNER_DAEMON_JSON)} | cmp -s /var/lib/layerlab/backup/daemon.json - && echo daemon.json-backed-up
[ -d /var/lib/layerlab/backup/docker/volumes/owner-data ] && echo owner-data-set-aside
docker image ls --filter label=layerlab.lab=pv -q | wc -l`,
    );
    assert.deepEqual(
      prepared.trim().split('\n'),
      ['ext4', 'overlay2', '0', 'daemon.json-backed-up', 'owner-data-set-aside', '1'],
      "layerlab's disk and Docker in place, the owner's set aside, the tool image labelled",
    );

    const down = await layerlab('down', '--lab', ownerLabFile, '--inventory', ownerInventoryFile);
    assert.equal(down.code, 0, down.stderr);
    assert.match(down.stderr, /ext4: restored the owner's/);
    assert.equal(await onHost(inventory, 'ext4', OWNER_STATE), before, "the owner's Docker is back as it was");
  });

  it('provider delete removes the VMs and their disks (the code `layerlab down` runs)', async () => {
    await deleteLocalLab(LAB);
    for (const h of recorded) assert.ok(!(h.pid && isOurProcess(h.pid, h.dir)), `${h.name} stopped`);
    assert.ok(!existsSync(join(stateDir, 'labs', LAB)), 'state folder gone');
  });
});
