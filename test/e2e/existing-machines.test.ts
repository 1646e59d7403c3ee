/**
 * Machines someone already has, played by two real QEMU VMs that the local
 * target's Pulumi dynamic provider makes (its create and delete called
 * directly, as Pulumi's provider host would): the overlay2-ext4 and btrfs
 * profiles on them.
 *
 * As root, `--inventory hosts.yaml` (target static) drives them for up, run
 * and down. Then the ext4 VM plays a machine with an owner (issue 12): their
 * container `ll-mine`, volume, image and daemon.json; `up` without
 * `dedicated: true` must refuse (exit 2, nothing changed), with it prepare,
 * and `down` must give the owner everything back. The owner had also
 * formatted the data disk and listed it in fstab for /var/lib/docker (issue
 * 35, N1): prepare wipes that filesystem, so `down` disables the line, and
 * the machine, rebooted once, must come back to SSH instead of stopping in
 * emergency mode.
 *
 * Then issue 15's acceptance: the nightly script run by an ordinary user whose
 * controller cannot build tool images. The machines' apt reaches Debian 12's
 * packages through a small repository this test copies onto them (the lab
 * network reaches nothing else). `scripts/nightly.sh` runs twice as `nobody`,
 * with a PATH that holds no mmdebstrap: the first night builds the dbench tool
 * image on a lab host and brings it into nobody's cache; every host loads the
 * same bytes (sha256 in each host's env); the second night reuses the cache
 * and is compared with the first through the history file. Each night's down
 * leaves nothing of layerlab's on either machine, and the owner's Docker as
 * it was. Last, the provider's delete removes the VMs.
 *
 * One pair of VMs serves both: creating it took 195 s in a CI-like run at
 * 9803c84, as long as the static target's five tests on it together (189 s;
 * README, Development).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { readLocalState } from '../../lab/targets/local/state.ts';
import type { Inventory } from '../../lab/targets/types.ts';
import { isOurProcess } from '../../lab/util/proc.ts';
import { cliRunner } from './cli.ts';
import { inventoryEntries, onHost as onLabHost, withHost } from './lab-hosts.ts';

const REPO = resolve(import.meta.dirname, '..', '..');
const NOBODY = 65534;
const work = mkdtempSync(join(tmpdir(), 'layerlab-e2e-existing-machines-'));
chmodSync(work, 0o755);
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

type HostState = { name: string; dir: string; pid?: number };
/** The VMs the local target's state.json records for the lab (none once it is deleted). */
const vms = (): HostState[] => Object.values(readLocalState(LAB)?.hosts ?? {});
/** The VMs as the local target recorded them: their pids are the last resort if deleting the lab fails. */
let recorded: HostState[] = [];

// The ordinary user's side: its home, cache, results and files, all its own.
const user = join(work, 'nobody');
const nightlyLab = join(user, 'nightly.yaml');
const nightlyInventory = join(user, 'hosts.yaml');
const history = join(user, 'history.sqlite');
const summary = join(user, 'summary.md');
const userEnv = {
  HOME: user,
  PATH: join(user, 'bin'),
  LAYERLAB_HOME: join(user, 'state'),
  LAYERLAB_CACHE: join(user, 'cache'),
  LAYERLAB_RESULTS: join(user, 'results'),
  LANG: 'C.UTF-8',
  // tsx keeps a compile cache under the temporary folder: this one goes with the test's.
  TMPDIR: join(user, 'tmp'),
};

after(async () => {
  if (readLocalState(LAB)) await deleteLocalLab(LAB).catch((err) => console.error(`deleting the VMs: ${err}`));
  for (const h of recorded) if (h.pid && isOurProcess(h.pid, h.dir)) process.kill(h.pid, 'SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

const onHost = (inventory: Inventory, name: string, command: string) =>
  onLabHost(inventory, name, command, join(work, 'ssh-test.log'));

/** PATH for the ordinary user: every command of /usr/bin and /bin but mmdebstrap. */
function pathWithoutMmdebstrap(dir: string): void {
  mkdirSync(dir);
  for (const from of ['/usr/local/bin', '/usr/bin', '/bin']) {
    if (!existsSync(from)) continue;
    for (const name of readdirSync(from)) {
      if (name === 'mmdebstrap' || existsSync(join(dir, name))) continue;
      symlinkSync(join(from, name), join(dir, name));
    }
  }
}

/**
 * An apt repository of bookworm's Essential packages, dbench and mmdebstrap with
 * every dependency, downloaded by apt from this machine's own sources: what a
 * lab host's apt would reach on a network. Not flat: mmdebstrap finds the
 * Essential set through a suite's index ([trusted=yes]: nothing to sign).
 */
function aptRepository(dir: string): void {
  const pool = join(dir, 'pool');
  mkdirSync(join(pool, 'partial'), { recursive: true });
  writeFileSync(join(dir, 'status'), '');
  const dumped = spawnSync('apt-cache', ['dumpavail'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  assert.equal(dumped.status, 0, `apt-cache dumpavail: ${dumped.stderr}`);
  const essential = new Set<string>();
  for (const record of dumped.stdout.split('\n\n')) {
    const name = /^Package: (\S+)$/m.exec(record)?.[1];
    if (name && /^Essential: yes$/m.test(record)) essential.add(name);
  }
  const options = [`Dir::State::status=${join(dir, 'status')}`, `Dir::Cache::archives=${pool}`];
  const fetched = spawnSync(
    'apt-get',
    [
      '-q',
      ...[...options, 'Dir::Cache::pkgcache=', 'Dir::Cache::srcpkgcache='].flatMap((o) => ['-o', o]),
      'install',
      '--download-only',
      '-y',
      '--no-install-recommends',
      ...essential,
      'dbench',
      'mmdebstrap',
    ],
    { encoding: 'utf8' },
  );
  assert.equal(fetched.status, 0, `apt-get --download-only: ${fetched.stderr}`);
  rmSync(join(pool, 'partial'), { recursive: true, force: true });
  rmSync(join(pool, 'lock'), { force: true });
  const index: string[] = [];
  for (const deb of readdirSync(pool).filter((f) => f.endsWith('.deb'))) {
    const control = spawnSync('dpkg-deb', ['-f', join(pool, deb)], { encoding: 'utf8' });
    assert.equal(control.status, 0, `dpkg-deb -f ${deb}: ${control.stderr}`);
    const bytes = readFileSync(join(pool, deb));
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    index.push(`${control.stdout.trimEnd()}\nFilename: pool/${deb}\nSize: ${bytes.length}\nSHA256: ${sha256}\n`);
  }
  const packages = Buffer.from(index.join('\n'));
  mkdirSync(join(dir, 'dists', 'bookworm', 'main', 'binary-amd64'), { recursive: true });
  writeFileSync(join(dir, 'dists', 'bookworm', 'main', 'binary-amd64', 'Packages'), packages);
  const packagesSha = createHash('sha256').update(packages).digest('hex');
  writeFileSync(
    join(dir, 'dists', 'bookworm', 'Release'),
    `Suite: bookworm\nCodename: bookworm\nArchitectures: amd64\nComponents: main\nDate: ${new Date().toUTCString()}\nSHA256:\n ${packagesSha} ${packages.length} main/binary-amd64/Packages\n`,
  );
  rmSync(join(dir, 'status'));
}

const AS_NOBODY = ['--reuid', String(NOBODY), '--regid', String(NOBODY), '--clear-groups', '--'];

/**
 * The checkout nobody runs: this one when nobody can read it (and its
 * node_modules), else a copy in the test's folder (a clone under /root is
 * root's alone).
 */
function checkoutForNobody(): string {
  const probe = join(REPO, 'node_modules', 'tsx', 'package.json');
  if (spawnSync('setpriv', [...AS_NOBODY, 'test', '-r', probe]).status === 0) return REPO;
  const copy = join(work, 'checkout');
  mkdirSync(copy);
  const tar = spawnSync(
    'bash',
    ['-c', 'tar -C "$1" -chf - --exclude=./.git --exclude=./results . | tar -C "$2" -xf -', 'copy', REPO, copy],
    { encoding: 'utf8' },
  );
  assert.equal(tar.status, 0, `copying the checkout for nobody: ${tar.stderr}`);
  return copy;
}
let checkout = REPO;

/** The nightly script as `nobody`, with only the ordinary user's environment. */
function nightlyAsNobody(): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    const script = [join(checkout, 'scripts', 'nightly.sh'), '--lab', nightlyLab, '--target', 'static'];
    const child = spawn(
      'setpriv',
      [...AS_NOBODY, 'bash', ...script, '--inventory', nightlyInventory, '--history', history, '--summary', summary],
      { cwd: user, env: userEnv, stdio: ['ignore', 'inherit', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += c;
      process.stderr.write(c);
    });
    child.on('close', (code) => done({ code, stderr }));
  });
}

function chownTree(path: string): void {
  chownSync(path, NOBODY, NOBODY);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.isDirectory()) chownTree(join(path, entry.name));
    else if (!entry.isSymbolicLink()) chownSync(join(path, entry.name), NOBODY, NOBODY);
  }
}

/** Whether the machine's Docker runs: each night's down must give it back as the night found it. */
const DOCKER_STATE = 'echo "docker $(systemctl is-active docker.service || true)"';

/**
 * What a night leaves on a machine: Docker as it was before (DOCKER_STATE),
 * and nothing of layerlab's. A stopped Docker is started to be looked into,
 * then stopped again, so the next night finds the machine as this one did.
 */
const LEFT_OVER = `${DOCKER_STATE}; for d in /opt/layerlab /var/lib/layerlab; do [ ! -e "$d" ] || echo "$d"; done
was_active=0; systemctl is-active --quiet docker.service && was_active=1
systemctl start docker.service
docker ps -aq --filter label=layerlab.lab; docker volume ls -q --filter label=layerlab.lab
docker image ls --filter label=layerlab.lab=nightly-e2e --format '{{.Repository}}:{{.Tag}}'
[ "$was_active" = 1 ] || systemctl stop docker.service docker.socket`;

/** The owner's own daemon.json (no networking either: containers here run --network none). */
const OWNER_DAEMON_JSON = '{ "bridge": "none", "iptables": false, "labels": ["owner=me"] }';

/** What the owner of the machine would look at: Docker's config, state and contents. */
const OWNER_STATE = `cat /etc/docker/daemon.json; systemctl is-active docker.service || true; systemctl is-enabled docker.service || true
mountpoint /var/lib/docker || true; grep /var/lib/docker /etc/fstab | sed 's/^/fstab: /' || true
docker ps -a --format '{{.Names}} {{.Image}} {{.Status}}'; docker volume ls -q; docker image ls --format '{{.Repository}}:{{.Tag}}'`;

/** OWNER_STATE without its fstab lines (`down` may disable one, on purpose). */
const withoutFstab = (state: string) =>
  state
    .split('\n')
    .filter((l) => !l.startsWith('fstab: '))
    .join('\n');

/** The UUID of the filesystem the owner made on ext4's data disk, and their fstab line for it. */
let ownerUuid = '';
const ownerFstabLine = () => `UUID=${ownerUuid} /var/lib/docker ext4 defaults 0 2`;

describe(
  'machines someone already has: the static target and nightly.sh on VMs from the dynamic provider',
  { timeout: 90 * 60_000 },
  () => {
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
      // A damaged transfer: the host refuses bytes whose sha256 is not the controller's.
      const damaged = await withHost(inventory, 'btrfs', join(work, 'ssh-test.log'), (conn) =>
        conn.exec(
          `env LL_LAB=${LAB} LL_SHA256=${'0'.repeat(64)} bash /opt/layerlab/guest/load-image.sh layerlab/damaged:1`,
          {
            stdin: 'not the archive the controller hashed',
          },
        ),
      );
      assert.equal(damaged.code, 1, `load-image.sh refuses the damaged archive: ${damaged.stderr}`);
      assert.match(damaged.stderr, /the archive received hashes to [0-9a-f]{64}, not 0{64}/);
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
      // And the data disk formatted and listed in fstab for /var/lib/docker, to be
      // mounted from the next boot on (not mounted yet: a disk mounted there
      // would hold the Docker data the next steps check is set aside and put
      // back; no daemon-reload either: the next boot reads the line).
      const dataDisk = inventory.hosts.find((h) => h.name === 'ext4')?.dataDisk;
      assert.ok(dataDisk, 'ext4 has a data disk');
      ownerUuid = (
        await onHost(
          inventory,
          'ext4',
          `set -euo pipefail
if mountpoint -q /var/lib/docker; then echo 'the data disk is still mounted' >&2; exit 1; fi
mkfs.ext4 -F -q ${dataDisk}
uuid="$(blkid -s UUID -o value ${dataDisk})"
echo "UUID=$uuid /var/lib/docker ext4 defaults 0 2" >> /etc/fstab
echo "$uuid"`,
        )
      ).trim();
      assert.match(ownerUuid, /^[0-9a-f-]{36}$/, 'the owner made a filesystem on the data disk');
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
      assert.equal(
        withoutFstab(await onHost(inventory, 'ext4', OWNER_STATE)),
        withoutFstab(before),
        "the owner's Docker is back as it was",
      );
      // Their fstab line names the filesystem prepare wiped: disabled, and the operator told.
      assert.match(
        down.stderr,
        new RegExp(
          `ext4: warning: /etc/fstab line "${ownerFstabLine()}" disabled \\(filesystem gone: UUID=${ownerUuid} was on data disk /dev/\\S+, which layerlab wiped and re-made on \\d{4}-\\d\\d-\\d\\d\\)`,
        ),
      );
    });

    it("the owner's machine boots after down: its fstab line for the wiped filesystem is disabled, not waited for", async () => {
      const bootId = async () => (await onHost(inventory, 'ext4', 'cat /proc/sys/kernel/random/boot_id')).trim();
      const before = await bootId();
      // down started the owner's Docker again, as it ran before up.
      const dockerWas = (await onHost(inventory, 'ext4', 'systemctl is-active docker.service || true')).trim();
      assert.equal(dockerWas, 'active', "the owner's Docker runs before the reboot");
      // Rebooted a second after this command returns: its SSH session ends first.
      await onHost(inventory, 'ext4', 'systemd-run --quiet --on-active=1 systemctl reboot');
      // A boot that waits for the old UUID gives up after 90 s and stops in
      // emergency mode, where there is no SSH: it never answers.
      const deadline = Date.now() + 10 * 60_000;
      let now = before;
      while (now === before) {
        assert.ok(Date.now() < deadline, 'ext4 answers SSH within 10 minutes of its reboot (no emergency mode)');
        now = await bootId().catch(() => before);
        if (now === before) await new Promise((r) => setTimeout(r, 2000));
      }
      const [state = '', ...failed] = (
        await onHost(
          inventory,
          'ext4',
          'systemctl is-system-running --wait || true; systemctl --failed --plain --no-legend',
        )
      )
        .trim()
        .split('\n');
      assert.ok(
        ['running', 'degraded'].includes(state),
        `booted to ${state}, not maintenance or emergency: ${failed.join('; ')}`,
      );
      const fstab = await onHost(inventory, 'ext4', 'cat /etc/fstab');
      assert.match(
        fstab,
        new RegExp(`^# layerlab: disabled on .*UUID=${ownerUuid} was on data disk .*\\n#${ownerFstabLine()}$`, 'm'),
        "the owner's line is kept, commented out under layerlab's note",
      );
      assert.doesNotMatch(fstab, new RegExp(`^UUID=${ownerUuid}`, 'm'), 'and not active');
      // Docker is not enabled at boot here (the owner only started it): they start it again, on the root file system.
      await onHost(
        inventory,
        'ext4',
        'systemctl start docker.service; for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done',
      );
      assert.match(
        await onHost(inventory, 'ext4', "docker ps -a --format '{{.Names}}'"),
        /^ll-mine$/m,
        "the owner's container is there after the reboot",
      );
    });

    const dockerBefore = new Map<string, string>();
    const archiveSha256 = () => {
      const tools = join(userEnv.LAYERLAB_CACHE, 'tools');
      const dirs = readdirSync(tools).filter((d) => d.startsWith('layerlab-dbench-'));
      assert.equal(dirs.length, 1, `one dbench image in nobody's cache (${dirs.join(', ')})`);
      return createHash('sha256')
        .update(readFileSync(join(tools, dirs[0] ?? '', 'image.tar.zst')))
        .digest('hex');
    };

    it('for the nights: machines whose apt reaches bookworm only, and an ordinary user without mmdebstrap', async () => {
      const repo = join(work, 'apt');
      aptRepository(repo);
      await withHost(inventory, 'ext4', join(work, 'ssh-test.log'), (conn) =>
        conn.pushDir(repo, '/srv/bookworm', ['dists', 'pool']),
      );
      // Both machines' apt: only that repository (the lab's network reaches no mirror);
      // copy://, not file://: mmdebstrap's chroot cannot see the host's folders.
      for (const name of ['ext4', 'btrfs']) {
        await onHost(
          inventory,
          name,
          `set -euo pipefail; mkdir -p /root/apt-aside; find /etc/apt/sources.list.d -maxdepth 1 -type f -exec mv -t /root/apt-aside {} +
echo 'deb [trusted=yes] copy:///srv/bookworm bookworm main' > /etc/apt/sources.list; ! command -v mmdebstrap`,
        );
        dockerBefore.set(name, (await onHost(inventory, name, DOCKER_STATE)).trim());
      }
      // The nights find the owner's Docker running on ext4, with their container, volume and image.
      assert.equal(dockerBefore.get('ext4'), 'docker active');
      mkdirSync(user);
      mkdirSync(userEnv.TMPDIR);
      pathWithoutMmdebstrap(join(user, 'bin'));
      for (const h of inventory.hosts) copyFileSync(h.privateKeyPath, join(user, `${h.name}.key`));
      writeFileSync(
        nightlyInventory,
        stringify({
          hosts: inventoryEntries(inventory, (host) => `${host}.key`).map((h) => ({ ...h, dedicated: true })),
        }),
      );
      writeFileSync(
        nightlyLab,
        `name: nightly-e2e
seed: 15
target: { kind: static, trials: serial }
hosts:
  - { name: ext4, profile: overlay2-ext4 }
  - { name: btrfs, profile: btrfs }
scenarios:
  dbench: { clients: 2, duration: 3 }
mounts: [layer, volume]
repetitions: 1
`,
      );
      chownTree(user);
      for (const h of inventory.hosts) chmodSync(join(user, `${h.name}.key`), 0o600);
      checkout = checkoutForNobody();
      const probe = spawnSync('setpriv', [...AS_NOBODY, 'id', '-u'], { env: userEnv, encoding: 'utf8' });
      assert.equal(probe.stdout.trim(), String(NOBODY), `the controller runs as nobody: ${probe.stderr}`);
      assert.equal(
        spawnSync('bash', ['-c', 'command -v mmdebstrap'], { env: userEnv }).status,
        1,
        'no mmdebstrap on PATH',
      );
    });

    it('night 1: a lab host builds the tool image; every host loads the same bytes; down leaves nothing', async () => {
      const r = await nightlyAsNobody();
      assert.equal(r.code, 0, 'night 1 exits 0');
      assert.match(
        r.stderr,
        /ext4: building tool image dbench from Debian packages \(the controller cannot: it does not run as root\)/,
      );
      assert.match(r.stderr, /first night/, 'no history before night 1');
      assert.ok(existsSync(join(userEnv.TMPDIR, `tsx-${NOBODY}`)), "tsx's cache is in the test's folder, not /tmp");
      assert.ok(existsSync(history), 'the history file was written back');
      const sha = archiveSha256();
      const runs = readdirSync(userEnv.LAYERLAB_RESULTS).filter((d) => d.includes('nightly-e2e'));
      assert.equal(runs.length, 1, `one run (${runs.join(', ')})`);
      for (const name of ['ext4', 'btrfs']) {
        const loaded = readFileSync(
          join(userEnv.LAYERLAB_RESULTS, runs[0] ?? '', 'hosts', name, 'env', 'tool-images.txt'),
          'utf8',
        );
        assert.match(
          loaded,
          new RegExp(`^layerlab/dbench:\\S+ ${sha}$`, 'm'),
          `${name} loaded the cached archive's bytes`,
        );
        const left = (await onHost(inventory, name, LEFT_OVER)).trim();
        assert.equal(left, dockerBefore.get(name), `${name}: Docker as before, nothing of layerlab's left`);
      }
    });

    it('night 2: the cache serves the image, and the run is compared with night 1 through the history', async () => {
      const before = archiveSha256();
      const r = await nightlyAsNobody();
      assert.equal(r.code, 0, 'night 2 exits 0');
      assert.doesNotMatch(r.stderr, /building tool image/, 'nothing built on night 2');
      assert.equal(archiveSha256(), before, 'the same cached archive');
      const runs = readdirSync(userEnv.LAYERLAB_RESULTS)
        .filter((d) => d.includes('nightly-e2e'))
        .sort();
      assert.equal(runs.length, 2, `two runs (${runs.join(', ')})`);
      const compared = readFileSync(join(userEnv.LAYERLAB_RESULTS, 'nightly', runs[1] ?? '', 'compare.md'), 'utf8');
      process.stderr.write(`compare.md of night 2:\n${compared}\n`);
      assert.match(compared, new RegExp(runs[0] ?? 'night-1'), 'compare.md names night 1 as the baseline');
      assert.match(readFileSync(summary, 'utf8'), new RegExp(runs[1] ?? 'night-2'), 'the summary has night 2');
      for (const name of ['ext4', 'btrfs']) {
        const left = (await onHost(inventory, name, LEFT_OVER)).trim();
        assert.equal(left, dockerBefore.get(name), `${name}: Docker as before, nothing of layerlab's left`);
      }
      assert.match(
        await onHost(inventory, 'ext4', "docker ps -a --format '{{.Names}}'"),
        /^ll-mine$/m,
        "the owner's container outlived both nights",
      );
      const labs = join(userEnv.LAYERLAB_HOME, 'labs');
      assert.deepEqual(existsSync(labs) ? readdirSync(labs) : [], [], 'no lab state left on the controller');
    });

    it('provider delete removes the VMs and their disks (the code `layerlab down` runs)', async () => {
      await deleteLocalLab(LAB);
      for (const h of recorded) assert.ok(!(h.pid && isOurProcess(h.pid, h.dir)), `${h.name} stopped`);
      assert.ok(!existsSync(join(stateDir, 'labs', LAB)), 'state folder gone');
    });
  },
);
