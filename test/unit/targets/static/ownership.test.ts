/**
 * Issue 12, findings 3, 6 and 10 (guest side): what layerlab does on a machine
 * it does not own. The guest scripts run here under bash against a fake host:
 * stub `docker`, `wipefs`, `systemctl`, `mount`... on PATH record every call,
 * and every path lib.sh writes to points into a temporary folder. A stub `rm`
 * deletes only inside that folder: the 80ecdfe scripts, which hard-code
 * /var/lib/docker, are recorded, never obeyed. Each case failed on 80ecdfe.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
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
import { REMOTE_ENV, REMOTE_TRIALS } from '../../../../lab/paths.ts';
import { pushGuestFiles } from '../../../../lab/prepare/prepare.ts';
import { readStaticInventory } from '../../../../lab/targets/static/inventory.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..', '..');
const GUEST = join(ROOT, 'guest');
const LIB = join(GUEST, 'lib.sh');
const work = mkdtempSync(join(tmpdir(), 'layerlab-security-static-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** One Docker object of the fake host: its name, id and labels ("k=v,k=v" or ""). */
interface Thing {
  name: string;
  id: string;
  labels?: string;
}

interface FakeHostSpec {
  containers?: Thing[];
  images?: Thing[];
  volumes?: Thing[];
  networks?: Thing[];
  /** What `lsblk -o MOUNTPOINT <disk>` prints. */
  diskMounts?: string;
}

/**
 * Records its call in $FAKE/log. `docker ... ls`/`ps` list $FAKE/<kind> (labels|name|id
 * lines) honouring label=, name= and a positional reference pattern.
 */
const DOCKER_STUB = `#!/usr/bin/env bash
echo "docker $*" >> "$FAKE/log"
case "$1" in
  info) exit 0 ;;
  ps) kind=containers; shift ;;
  volume | image | network)
    case "$2" in
      ls) kind="$1s"; shift 2 ;;
      inspect) exit 1 ;;
      *) exit 0 ;;
    esac
    ;;
  *) exit 0 ;;
esac
quiet=0 filters=() pattern=""
while [ "$#" -gt 0 ]; do
  case "$1" in
    -q | -aq) quiet=1 ;;
    --format) shift ;;
    --filter) filters+=("$2"); shift ;;
    -*) ;;
    *) pattern="$1" ;;
  esac
  shift
done
[ -f "$FAKE/$kind" ] || exit 0
while IFS='|' read -r labels name id; do
  ok=1
  for f in "\${filters[@]}"; do
    case "$f" in
      label=*=*) [[ ",$labels," == *",\${f#label=},"* ]] || ok=0 ;;
      label=*) [[ ",$labels" == *",\${f#label=}="* ]] || ok=0 ;;
      name=*) [[ "$name" =~ \${f#name=} ]] || ok=0 ;;
    esac
  done
  if [ -n "$pattern" ] && [[ "$name" != $pattern* ]]; then ok=0; fi
  if [ "$ok" = 1 ]; then if [ "$quiet" = 1 ]; then echo "$id"; else echo "$name"; fi; fi
done < "$FAKE/$kind"
`;

/** Deletes only inside $FAKE; records everything. */
const RM_STUB = `#!/usr/bin/env bash
echo "rm $*" >> "$FAKE/log"
for a in "$@"; do
  case "$a" in -*) ;; "$FAKE"/*) ;; *) exit 0 ;; esac
done
exec /bin/rm "$@"
`;

/** Commands that would change the machine: recorded, never run. */
const RECORDED = ['wipefs', 'umount', 'mount', 'mkfs.ext4', 'dumpe2fs', 'journalctl'];

let fakes = 0;

/** A fake host: a folder with stubs on PATH, fixtures for docker, a fake block device. */
function fakeHost(spec: FakeHostSpec = {}) {
  const dir = join(work, `host-${++fakes}`);
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const stub = (name: string, text: string) => {
    writeFileSync(join(bin, name), text);
    chmodSync(join(bin, name), 0o755);
  };
  stub('docker', DOCKER_STUB);
  stub('rm', RM_STUB);
  for (const name of RECORDED) stub(name, `#!/usr/bin/env bash\necho "${name} $*" >> "$FAKE/log"\n`);
  // docker "was running"; nothing is a mountpoint; stop/start only recorded.
  stub('systemctl', '#!/usr/bin/env bash\necho "systemctl $*" >> "$FAKE/log"\nexit 0\n');
  stub('mountpoint', '#!/usr/bin/env bash\nexit 1\n');
  stub('blkid', '#!/usr/bin/env bash\necho NEW-UUID\n');
  stub('lsblk', `#!/usr/bin/env bash\nprintf '%s\\n' ${JSON.stringify(spec.diskMounts ?? '')}\n`);
  for (const kind of ['containers', 'images', 'volumes', 'networks'] as const) {
    const things = spec[kind] ?? [];
    writeFileSync(join(dir, kind), things.map((t) => `${t.labels ?? ''}|${t.name}|${t.id}\n`).join(''));
  }
  writeFileSync(join(dir, 'log'), '');
  // A block device node that is no real disk (loop minor 250): `[ -b ]` passes, nothing can write to it.
  const disk = join(dir, 'disk');
  const made = spawnSync('mknod', [disk, 'b', '7', '250']);
  return {
    dir,
    disk,
    hasDisk: made.status === 0,
    log: () => readFileSync(join(dir, 'log'), 'utf8'),
    /** Runs `script` in bash with lib.sh sourced and its paths pointed into this fake host. */
    bash(script: string, env: Record<string, string> = {}) {
      const setup = `set -euo pipefail
source ${JSON.stringify(LIB)}
LL_STATE="$FAKE/state"; LL_WORK="$LL_STATE/work"; LL_BACKUP="$LL_STATE/backup"; LL_TRIAL_PIDFILE="$LL_WORK/trial.pid"
LL_DOCKER_DIR="$FAKE/var-lib-docker"; LL_DAEMON_JSON="$FAKE/etc-docker/daemon.json"; LL_FSTAB="$FAKE/fstab"
`;
      return this.run(['bash', '-c', `${setup}\n${script}`], env);
    },
    run(argv: string[], env: Record<string, string> = {}) {
      const r = spawnSync(argv[0] ?? 'bash', argv.slice(1), {
        encoding: 'utf8',
        env: { PATH: `${bin}:/usr/sbin:/usr/bin:/sbin:/bin`, FAKE: dir, HOME: dir, ...env },
      });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    },
  };
}

const OWNERS = {
  containers: [
    { name: 'll-mine', id: 'c0ffee01' },
    { name: 'll-fio-ext4-1', id: 'abc00001', labels: 'layerlab.lab=pv' },
  ],
  images: [
    { name: 'owner/tiny:latest@sha256:0a', id: 'sha256:0a' },
    { name: 'layerlab/fio:1@sha256:1b', id: 'sha256:1b', labels: 'layerlab.lab=pv' },
  ],
  volumes: [
    { name: 'll-owner-data', id: 'll-owner-data' },
    { name: 'll-fio-ext4-1', id: 'll-fio-ext4-1', labels: 'layerlab.lab=pv' },
  ],
};

describe('finding 3: a static machine the lab does not own', () => {
  it("down (cleanup.sh) removes what carries the lab's label, never the owner's ll-mine", () => {
    const host = fakeHost({
      ...OWNERS,
      images: [
        { name: 'layerlab/owners-own', id: 'sha256:0a' },
        { name: 'layerlab/fio', id: 'sha256:1b', labels: 'layerlab.lab=pv' },
      ],
    });
    const r = host.run(['bash', join(GUEST, 'cleanup.sh')], { LL_LAB: 'pv' });
    assert.equal(r.code, 0, r.stderr);
    const removals = host
      .log()
      .split('\n')
      .filter((l) => /^docker (rm|volume rm|image rm|network rm)/.test(l));
    const removed = removals.join('\n');
    assert.doesNotMatch(removed, /c0ffee01/, "the owner's container ll-mine stays");
    assert.doesNotMatch(removed, /ll-owner-data/, "the owner's volume ll-owner-data stays");
    assert.doesNotMatch(removed, /sha256:0a|owners-own/, "the owner's image stays, even named layerlab/*");
    assert.match(removed, /abc00001/, "the lab's container is removed");
    assert.match(removed, /ll-fio-ext4-1/, "the lab's volume is removed");
    assert.match(removed, /sha256:1b/, "the lab's image is removed");
  });

  it("applying a profile refuses a machine whose Docker holds the owner's things: nothing is changed", (t) => {
    const host = fakeHost(OWNERS);
    if (!host.hasDisk) return t.skip('mknod needs root');
    const r = host.bash('ll_profile_begin overlay2-ext4; echo PROFILE-WOULD-CONTINUE', { LL_DATA_DISK: host.disk });
    assert.notEqual(r.code, 0, 'the profile stops');
    assert.doesNotMatch(r.stdout, /PROFILE-WOULD-CONTINUE/, 'the profile stops');
    const log = host.log();
    assert.doesNotMatch(log, /^wipefs/m, 'the data disk is not wiped');
    assert.doesNotMatch(log, /^rm /m, 'nothing is deleted');
    assert.doesNotMatch(log, /^umount|^systemctl stop/m, 'docker is neither stopped nor unmounted');
    assert.match(r.stderr, /containers: ll-mine/, 'the message names the container');
    assert.match(r.stderr, /images: owner\/tiny/, 'the message names the image');
    assert.match(r.stderr, /volumes: ll-owner-data/, 'the message names the volume');
    assert.match(r.stderr, /dedicated: true/, 'the message names the key to set');
  });

  it('a data disk in use elsewhere (here: the root file system) is refused even on a dedicated host', (t) => {
    const host = fakeHost({ diskMounts: '/' });
    if (!host.hasDisk) return t.skip('mknod needs root');
    const r = host.bash('ll_profile_begin overlay2-ext4', { LL_DATA_DISK: host.disk, LL_DEDICATED: '1' });
    assert.notEqual(r.code, 0, 'refused');
    assert.match(r.stderr, /in use at \//, 'names where the disk is in use');
    assert.doesNotMatch(host.log(), /^wipefs/m, 'the data disk is not wiped');
  });

  it("dedicated: the owner's /var/lib/docker, daemon.json and fstab lines are set aside, not deleted, and down puts them back", (t) => {
    const host = fakeHost(OWNERS);
    if (!host.hasDisk) return t.skip('mknod needs root');
    const fstab = 'UUID=root / ext4 defaults 0 1\nUUID=owner /var/lib/docker ext4 defaults 0 2\n';
    const daemon = '{ "data-root-owner": true }\n';
    mkdirSync(join(host.dir, 'var-lib-docker', 'volumes', 'owner-data', '_data'), { recursive: true });
    writeFileSync(join(host.dir, 'var-lib-docker', 'volumes', 'owner-data', '_data', 'precious'), 'mine');
    mkdirSync(join(host.dir, 'etc-docker'));
    writeFileSync(join(host.dir, 'etc-docker', 'daemon.json'), daemon);
    // The fake fstab names the fake docker folder, as the real one names /var/lib/docker.
    const fakeFstab = fstab.replace('/var/lib/docker', join(host.dir, 'var-lib-docker'));
    writeFileSync(join(host.dir, 'fstab'), fakeFstab);

    const begin = host.bash('ll_profile_begin overlay2-ext4', { LL_DATA_DISK: host.disk, LL_DEDICATED: '1' });
    assert.equal(begin.code, 0, begin.stderr);
    assert.match(host.log(), /^wipefs -a -q /m, 'the data disk is wiped');
    const backup = join(host.dir, 'state', 'backup');
    // Checked before the rest of the profile runs: 80ecdfe's versions of the
    // next functions write the real /etc/fstab and /etc/docker/daemon.json.
    assert.ok(existsSync(join(backup, 'complete')), 'the owner’s setup is set aside first');
    const rest = host.bash(
      'LL_DISK="$LL_DATA_DISK"; ll_mount_docker_disk ext4; ll_docker_start overlay2 "[]"; echo overlay2-ext4 > "$LL_STATE/profile"',
      { LL_DATA_DISK: host.disk, LL_DEDICATED: '1' },
    );
    assert.equal(rest.code, 0, rest.stderr);
    assert.equal(
      readFileSync(join(backup, 'docker', 'volumes', 'owner-data', '_data', 'precious'), 'utf8'),
      'mine',
      "the owner's Docker data is moved aside, intact",
    );
    assert.equal(readFileSync(join(backup, 'daemon.json'), 'utf8'), daemon, 'daemon.json backed up');
    assert.match(readFileSync(join(host.dir, 'etc-docker', 'daemon.json'), 'utf8'), /"storage-driver": "overlay2"/);
    assert.match(readFileSync(join(host.dir, 'fstab'), 'utf8'), /^UUID=NEW-UUID /m, "layerlab's line in fstab");
    assert.doesNotMatch(readFileSync(join(host.dir, 'fstab'), 'utf8'), /UUID=owner/, "the owner's line is out");

    const upCalls = host.log().length;
    const down = host.bash('ll_restore_owner_setup');
    const downCalls = host.log().slice(upCalls);
    assert.equal(down.code, 0, down.stderr);
    assert.equal(readFileSync(join(host.dir, 'fstab'), 'utf8'), fakeFstab, 'fstab as it was');
    assert.equal(readFileSync(join(host.dir, 'etc-docker', 'daemon.json'), 'utf8'), daemon, 'daemon.json as it was');
    assert.equal(
      readFileSync(join(host.dir, 'var-lib-docker', 'volumes', 'owner-data', '_data', 'precious'), 'utf8'),
      'mine',
      "the owner's Docker data is back",
    );
    assert.match(downCalls, /^systemctl start docker.service/m, 'docker started again, as it ran before');
    assert.match(downCalls, /^systemctl enable --quiet docker.service/m, 'enabled at boot, as it was before');
    assert.ok(!existsSync(backup), 'the backup is consumed');
  });

  it("everything the guest creates in Docker carries the lab's (and run's) label", () => {
    const host = fakeHost();
    const r = host.bash('docker run --rm --network none img true; docker volume create v1; docker create img', {
      LL_LAB: 'pv',
      LL_RUN: 'r1',
    });
    assert.equal(r.code, 0, r.stderr);
    const calls = host.log().trim().split('\n');
    assert.equal(calls.length, 3, calls.join('\n'));
    for (const call of calls) {
      assert.match(call, /--label layerlab\.lab=pv --label layerlab\.run=r1/, `labelled: ${call}`);
    }
    // Every scenario creates through that wrapper: it sources lib.sh and never bypasses it.
    const scenarios = join(ROOT, 'lab', 'scenarios');
    for (const name of readdirSync(scenarios)) {
      const file = join(scenarios, name, 'guest.sh');
      if (!existsSync(file)) continue;
      const text = readFileSync(file, 'utf8');
      assert.match(text, /source .*guest\/lib\.sh/, `${name}/guest.sh sources lib.sh`);
      assert.doesNotMatch(text, /command docker (run|create|volume create)/, `${name}/guest.sh bypasses the labels`);
    }
    assert.match(readFileSync(join(GUEST, 'load-image.sh'), 'utf8'), /LABEL layerlab\.lab=/, 'tool images labelled');
  });

  it('the inventory key `dedicated` defaults to false; hosts layerlab makes are its own', async () => {
    const dir = join(work, 'inventory');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'hosts.yaml');
    const host = (name: string, extra: string) =>
      `  - { name: ${name}, profile: overlay2-ext4, address: 10.0.0.1, key: k, hostKey: "ssh-ed25519 AAAA", dataDisk: /dev/vdb${extra} }\n`;
    writeFileSync(file, `hosts:\n${host('a', '')}${host('b', ', dedicated: true')}`);
    const inventory = await readStaticInventory(file);
    // Imported here, not at the top: the rest of this file also runs against 80ecdfe, which lacks it.
    const { labOwnsHost } = await import('../../../../lab/prepare/prepare.ts');
    const [a, b] = inventory.hosts;
    assert.ok(a && b, 'two hosts');
    assert.equal(labOwnsHost('static', a), false, 'a static host is not the lab’s unless the inventory says so');
    assert.equal(labOwnsHost('static', b), true, 'dedicated: true');
    assert.equal(labOwnsHost('local', {}), true, 'a local VM is layerlab’s own');
    assert.equal(labOwnsHost('aws', {}), true, 'an aws instance is layerlab’s own');
  });
});

describe('finding 6: the hosts’ work folder', () => {
  it('is not in a world-writable place (no /tmp, no /var/tmp) on the controller’s side or the guest’s', () => {
    for (const path of [REMOTE_TRIALS, REMOTE_ENV]) {
      assert.doesNotMatch(path, /^\/(var\/)?tmp\//, `${path} is outside /tmp and /var/tmp`);
    }
    const offenders = spawnSync('grep', ['-rlE', '/(var/)?tmp/layerlab', GUEST, join(ROOT, 'lab', 'scenarios')], {
      encoding: 'utf8',
    }).stdout.trim();
    assert.equal(offenders, '', 'no guest script uses /tmp/layerlab or /var/tmp/layerlab');
    const pidfile = spawnSync('bash', ['-c', 'source "$1"; echo "$LL_TRIAL_PIDFILE"', '_', LIB], {
      encoding: 'utf8',
    }).stdout.trim();
    assert.match(pidfile, /^\/var\/lib\/layerlab\//, `trial.pid lives in root's state folder (${pidfile})`);
  });

  // The guest library runs as root on a host; as another user its checks of root's folders do not apply (CI runs unprivileged).
  const needsRoot = { skip: process.getuid?.() !== 0 && 'the guest library runs as root (chown, root-owned folders)' };

  it('a planted symlink is refused before root writes trial.pid through it', needsRoot, () => {
    const host = fakeHost();
    const victim = join(host.dir, 'victim');
    mkdirSync(join(host.dir, 'state'), { mode: 0o700 });
    mkdirSync(victim);
    symlinkSync(victim, join(host.dir, 'state', 'work'));
    const r = host.bash('ll_reap_stale_trial');
    assert.notEqual(r.code, 0, 'refused');
    assert.match(r.stderr, /symbolic link/, 'says why');
    assert.deepEqual(readdirSync(victim), [], 'nothing written through the link');
  });

  /** A fake host whose work folder another user (uid 1000) owns. */
  function hostWithForeignWork() {
    const host = fakeHost();
    mkdirSync(join(host.dir, 'state', 'work'), { recursive: true, mode: 0o700 });
    chownSync(join(host.dir, 'state', 'work'), 1000, 1000);
    return host;
  }

  it(
    'at the run’s start (ll_work_dir): a work folder another user owns, or anyone may write, is refused; a fresh one is root’s and 0700',
    needsRoot,
    () => {
      const other = hostWithForeignWork();
      const r1 = other.bash('ll_work_dir');
      assert.notEqual(r1.code, 0, 'another owner is refused');
      assert.match(r1.stderr, /owned by uid 1000/, 'names the owner');

      const open = fakeHost();
      mkdirSync(join(open.dir, 'state', 'work'), { recursive: true });
      chmodSync(join(open.dir, 'state', 'work'), 0o777);
      const r2 = open.bash('ll_work_dir');
      assert.notEqual(r2.code, 0, 'a world-writable folder is refused');
      assert.match(r2.stderr, /world-writable/, 'says why');

      const fresh = fakeHost();
      const r3 = fresh.bash('ll_work_dir; ll_reap_stale_trial; stat -c "%u %a" "$LL_STATE" "$LL_WORK"');
      assert.equal(r3.code, 0, r3.stderr);
      assert.equal(r3.stdout.trim(), '0 700\n0 700', 'root-owned, 0700');
      assert.ok(existsSync(join(fresh.dir, 'state', 'work', 'trial.pid')), 'trial.pid written');

      const loose = fakeHost();
      mkdirSync(join(loose.dir, 'state', 'work'), { recursive: true });
      chmodSync(join(loose.dir, 'state'), 0o755);
      const r4 = loose.bash('ll_work_dir; stat -c "%u %a" "$LL_STATE" "$LL_WORK"');
      assert.equal(r4.code, 0, r4.stderr);
      assert.equal(r4.stdout.trim(), '0 700\n0 700', 'an existing 0755 folder of root’s is made 0700');
    },
  );

  it(
    'on every trial (ll_reap_stale_trial, builtins only): another owner or a missing folder is refused before trial.pid is written',
    needsRoot,
    () => {
      const other = hostWithForeignWork();
      const r1 = other.bash('ll_reap_stale_trial');
      assert.notEqual(r1.code, 0, 'another owner is refused');
      assert.match(r1.stderr, /no longer owned by root/, 'says why');
      assert.ok(!existsSync(join(other.dir, 'state', 'work', 'trial.pid')), 'nothing written');

      const missing = fakeHost();
      const r2 = missing.bash('ll_reap_stale_trial');
      assert.notEqual(r2.code, 0, 'a trial does not create the folders: the run’s start does, checked');
      assert.match(r2.stderr, /missing or not a directory/, 'says why');
      assert.ok(!existsSync(join(missing.dir, 'state')), 'nothing created');
    },
  );

  it('env.sh, which every run and resumption runs first on each host, checks the folders in full', () => {
    const script = readFileSync(join(GUEST, 'env.sh'), 'utf8');
    assert.match(script, /^ll_work_dir$/m, 'env.sh calls ll_work_dir');
  });

  it('REMOTE_ROOT (/opt/layerlab) is checked like the work folder before each push', async () => {
    const calls: string[] = [];
    const host = {
      async exec(command: string, options: { stdin?: string } = {}) {
        calls.push(`run ${command} ${options.stdin ? options.stdin.split('\n').slice(-2).join(' ') : ''}`);
      },
      async push(_local: string, remote: string) {
        calls.push(`push ${remote}`);
      },
    };
    await pushGuestFiles(host);
    assert.equal(calls.length, 2, calls.join('\n'));
    assert.match(calls[0] ?? '', /ll_safe_dir '\/opt\/layerlab'/, 'checked first');
    assert.equal(calls[1], 'push /opt/layerlab', 'then pushed');
  });
});

describe('finding 10: guest-side JSON', () => {
  it('escapes every control character below 0x20 (a \\x01 in the CPU model)', () => {
    const nasty = `Intel\x01(R) Xeon\x1b[31m\x7f "quoted" back\\slash\ttab\r\nnext\x0b\x0c\x1f`;
    const r = spawnSync('bash', ['-c', 'source "$1"; ll_json_obj cpu "$2" kernel "6.1"', '_', LIB, nasty], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    const raw = [...r.stdout.trim()].filter((c) => c.charCodeAt(0) < 0x20);
    assert.deepEqual(raw, [], 'no raw control character in the JSON');
    assert.deepEqual(JSON.parse(r.stdout), { cpu: nasty, kernel: '6.1' }, 'parses back to the same text');
  });
});
