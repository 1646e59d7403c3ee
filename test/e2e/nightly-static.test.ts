/**
 * Issue 15's acceptance: the nightly script on machines someone already has,
 * run by an ordinary user whose controller cannot build tool images.
 *
 * Two real QEMU VMs (made by the local target's provider, as root) become a
 * static inventory. Their apt reaches Debian 12's packages through a small
 * repository this test copies onto them (the lab network reaches nothing
 * else). `scripts/nightly.sh` then runs twice as `nobody`, with a PATH that
 * holds no mmdebstrap: the first night builds the fio tool image on a lab
 * host and brings it into nobody's cache; every host loads the same bytes
 * (sha256 in each host's env); the second night reuses the cache and is
 * compared with the first through the history file. Down leaves nothing of
 * layerlab's on either machine.
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
import type { Inventory } from '../../lab/targets/types.ts';
import { isOurProcess } from '../../lab/util/proc.ts';
import { cliRunner } from './cli.ts';
import { inventoryEntries, onHost as onLabHost, withHost } from './lab-hosts.ts';

const REPO = resolve(import.meta.dirname, '..', '..');
const NOBODY = 65534;
const work = mkdtempSync(join(tmpdir(), 'layerlab-nightly-'));
chmodSync(work, 0o755);
const rootState = join(work, 'root-state');
// The provider runs in this process: its VMs' state goes to this test's folder.
process.env.LAYERLAB_HOME = rootState;
process.env.LAYERLAB_RESULTS = join(work, 'root-results');
const { createLocalLab, deleteLocalLab } = await import('../../infra/local/provider.ts');

const VM_LAB = 'nsvm';
const vmLabFile = join(work, 'vms.yaml');
writeFileSync(
  vmLabFile,
  `name: ${VM_LAB}
target: { local: { bootTimeoutSec: 900 } } # test:e2e runs two files at once: a boot may share 2 cores with 4 other VMs
hosts: # one vCPU each: test:e2e has up to five VMs on two cores at once; a cold up costs a third less CPU with one, a run a tenth more (README, Development)
  - { name: a, profile: overlay2-ext4, cpus: 1, diskGiB: 2 }
  - { name: b, profile: overlay2-ext4, cpus: 1, diskGiB: 2 }
scenarios:
  fio: { size: 8M, runtime: 1, ramp: 0, iodepth: 4 }
mounts: [layer]
repetitions: 1
`,
);

// The ordinary user's side: its home, cache, results and files, all its own.
const user = join(work, 'nobody');
const nightlyLab = join(user, 'nightly.yaml');
const inventoryFile = join(user, 'hosts.yaml');
const history = join(user, 'history.sqlite');
const summary = join(user, 'summary.md');
const userEnv = {
  HOME: user,
  PATH: join(user, 'bin'),
  LAYERLAB_HOME: join(user, 'state'),
  LAYERLAB_CACHE: join(user, 'cache'),
  LAYERLAB_RESULTS: join(user, 'results'),
  LANG: 'C.UTF-8',
};

let vmsMade = false;
/** The VMs' pids as the local target recorded them: the last resort if deleting the lab fails. */
let vmPids: { pid?: number; dir: string }[] = [];
after(async () => {
  if (vmsMade) await deleteLocalLab(VM_LAB).catch((err) => console.error(`deleting the VMs: ${err}`));
  for (const vm of vmPids) if (vm.pid && isOurProcess(vm.pid, vm.dir)) process.kill(vm.pid, 'SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

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
 * An apt repository of bookworm's Essential packages, fio and mmdebstrap with
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
      'fio',
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

const onHost = (inventory: Inventory, name: string, command: string) =>
  onLabHost(inventory, name, command, join(work, 'ssh-test.log'));

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
      [...AS_NOBODY, 'bash', ...script, '--inventory', inventoryFile, '--history', history, '--summary', summary],
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

describe('nightly.sh on a static inventory, run by an unprivileged controller', { timeout: 80 * 60_000 }, () => {
  let inventory: Inventory;
  const dockerBefore = new Map<string, string>();
  const archiveSha256 = () => {
    const tools = join(userEnv.LAYERLAB_CACHE, 'tools');
    const dirs = readdirSync(tools).filter((d) => d.startsWith('layerlab-fio-'));
    assert.equal(dirs.length, 1, `one fio image in nobody's cache (${dirs.join(', ')})`);
    return createHash('sha256')
      .update(readFileSync(join(tools, dirs[0] ?? '', 'image.tar.zst')))
      .digest('hex');
  };

  it('two Debian machines whose apt reaches bookworm, and an ordinary user without mmdebstrap', async () => {
    const outs = await createLocalLab({ labFile: vmLabFile, labName: VM_LAB, definitionHash: 'nightly-e2e' });
    vmsMade = true;
    inventory = outs.inventory;
    const state = JSON.parse(readFileSync(join(rootState, 'labs', VM_LAB, 'state.json'), 'utf8'));
    vmPids = Object.values(state.hosts as Record<string, { pid?: number; dir: string }>);
    // A damaged transfer: the host refuses bytes whose sha256 is not the controller's.
    const damaged = await withHost(inventory, 'b', join(work, 'ssh-test.log'), (conn) =>
      conn.exec(
        `env LL_LAB=${VM_LAB} LL_SHA256=${'0'.repeat(64)} bash /opt/layerlab/guest/load-image.sh layerlab/damaged:1`,
        {
          stdin: 'not the archive the controller hashed',
        },
      ),
    );
    assert.equal(damaged.code, 1, `load-image.sh refuses the damaged archive: ${damaged.stderr}`);
    assert.match(damaged.stderr, /the archive received hashes to [0-9a-f]{64}, not 0{64}/);
    // The provider prepared them for lab nsvm; a static `down` of that lab gives
    // them back as they were before layerlab, so the nights find owner's machines.
    const rootInventory = join(work, 'vms-hosts.yaml');
    writeFileSync(rootInventory, stringify({ hosts: inventoryEntries(inventory) }));
    const cleaned = await cliRunner(work, process.env)('down', '--lab', vmLabFile, '--inventory', rootInventory);
    assert.equal(cleaned.code, 0, `static down of the provider's lab: ${cleaned.stderr}`);
    const repo = join(work, 'apt');
    aptRepository(repo);
    await withHost(inventory, 'a', join(work, 'ssh-test.log'), (conn) =>
      conn.pushDir(repo, '/srv/bookworm', ['dists', 'pool']),
    );
    // Both machines' apt: only that repository (the lab's network reaches no mirror);
    // copy://, not file://: mmdebstrap's chroot cannot see the host's folders.
    for (const name of ['a', 'b']) {
      await onHost(
        inventory,
        name,
        `set -euo pipefail; mkdir -p /root/apt-aside; find /etc/apt/sources.list.d -maxdepth 1 -type f -exec mv -t /root/apt-aside {} +
echo 'deb [trusted=yes] copy:///srv/bookworm bookworm main' > /etc/apt/sources.list; ! command -v mmdebstrap`,
      );
      dockerBefore.set(name, (await onHost(inventory, name, DOCKER_STATE)).trim());
    }
    mkdirSync(user);
    pathWithoutMmdebstrap(join(user, 'bin'));
    for (const h of inventory.hosts) copyFileSync(h.privateKeyPath, join(user, `${h.name}.key`));
    writeFileSync(
      inventoryFile,
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
  - { name: a, profile: overlay2-ext4 }
  - { name: b, profile: overlay2-ext4 }
scenarios:
  fio: { size: 8M, runtime: 1, ramp: 0, iodepth: 4 }
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
      /a: building tool image fio from Debian packages \(the controller cannot: it does not run as root\)/,
    );
    assert.match(r.stderr, /first night/, 'no history before night 1');
    assert.ok(existsSync(history), 'the history file was written back');
    const sha = archiveSha256();
    const runs = readdirSync(userEnv.LAYERLAB_RESULTS).filter((d) => d.includes('nightly-e2e'));
    assert.equal(runs.length, 1, `one run (${runs.join(', ')})`);
    for (const name of ['a', 'b']) {
      const loaded = readFileSync(
        join(userEnv.LAYERLAB_RESULTS, runs[0] ?? '', 'hosts', name, 'env', 'tool-images.txt'),
        'utf8',
      );
      assert.match(loaded, new RegExp(`^layerlab/fio:\\S+ ${sha}$`, 'm'), `${name} loaded the cached archive's bytes`);
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
    for (const name of ['a', 'b']) {
      const left = (await onHost(inventory, name, LEFT_OVER)).trim();
      assert.equal(left, dockerBefore.get(name), `${name}: Docker as before, nothing of layerlab's left`);
    }
    const labs = join(userEnv.LAYERLAB_HOME, 'labs');
    assert.deepEqual(existsSync(labs) ? readdirSync(labs) : [], [], 'no lab state left on the controller');
  });
});
