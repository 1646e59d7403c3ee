/**
 * guest/lib.sh, run by the local bash against fake commands. Its engine
 * abstraction, against fake `docker` and `podman` commands that log their
 * arguments: scenarios say `docker`, the host's recorded engine answers, with
 * the same arguments and labels; Podman starts trial containers through its
 * CLI with --network none. And a static host's fstab after `down` (below).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { FAKE_CONTAINER_ID, guestSandbox } from '../guest-sandbox.ts';

const LIB = resolve(import.meta.dirname, '..', '..', '..', 'guest', 'lib.sh');
const work = mkdtempSync(join(tmpdir(), 'layerlab-stacks-engine-'));
after(() => rmSync(work, { recursive: true, force: true }));

const bin = join(work, 'bin');
mkdirSync(bin);
for (const engine of ['docker', 'podman']) {
  // Each fake logs "<engine> <args...>" and succeeds.
  writeFileSync(join(bin, engine), `#!/bin/sh\necho "${engine} $*" >> "$ENGINE_LOG"\n`);
  chmodSync(join(bin, engine), 0o755);
}

/** Runs `body` after sourcing lib.sh with LL_ENGINE as given; returns what the fake engines were asked. */
function engineCalls(engine: string, body: string): string[] {
  const log = join(work, `${engine}-${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(log, '');
  const result = spawnSync('bash', ['-c', `set -euo pipefail; source "$1"; ${body}`, '_', LIB], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, ENGINE_LOG: log, LL_ENGINE: engine, LL_LAB: 'lab1' },
  });
  assert.equal(result.status, 0, result.stderr);
  return readFileSync(log, 'utf8').trim().split('\n').filter(Boolean);
}

describe('guest/lib.sh: one engine abstraction', () => {
  it('the docker wrapper sends the same command, labels included, to the host’s engine', () => {
    const run = 'docker run --rm --network none img true; docker volume create v1; docker inspect x';
    assert.deepEqual(engineCalls('podman', run), [
      'podman run --label layerlab.lab=lab1 --rm --network none img true',
      'podman volume create --label layerlab.lab=lab1 v1',
      'podman inspect x',
    ]);
    assert.deepEqual(engineCalls('docker', run), [
      'docker run --label layerlab.lab=lab1 --rm --network none img true',
      'docker volume create --label layerlab.lab=lab1 v1',
      'docker inspect x',
    ]);
  });

  it('Podman starts a trial container through its CLI with --network none, not the Docker socket', () => {
    const out = join(work, 'out.txt');
    const calls = engineCalls(
      'podman',
      // The mount as ll_mount_setup describes a layer trial (no host folder made here).
      `LL_MOUNT_TYPE=''; LL_MOUNT_TARGET=/data; LL_MOUNT_ARGS=(--workdir /data); ll_container_run ll-t1 img ${out} ${out}.err fio --x`,
    );
    assert.deepEqual(calls, [
      'podman run --label layerlab.lab=lab1 --rm --name ll-t1 --network none --user 0 --workdir /data img fio --x',
    ]);
  });

  it('refuses an engine it does not know', () => {
    const result = spawnSync('bash', ['-c', 'source "$1"; ll_engine ps', '_', LIB], {
      encoding: 'utf8',
      env: { ...process.env, LL_ENGINE: 'rkt' },
    });
    assert.notEqual(result.status, 0);
    assert.match(result.stderr, /unknown engine rkt \(expected docker or podman\)/);
  });
});

/**
 * Issue 35, N1: a static host's fstab after `down`. The real guest scripts
 * (a profile, cleanup.sh) run from a copy of guest/ whose lib.sh points every
 * path it writes (state, backup, /var/lib/docker, daemon.json, fstab) into a
 * temporary root; fake `blkid`, `lsblk`, `wipefs`, `mkfs.ext4`, `systemctl`,
 * `mount`, `umount`, `mountpoint` and `docker` come first on PATH and play the
 * disks from one file (`<device> KEY=value` lines, what blkid would report).
 */
const DISKS = `#!/usr/bin/env bash
# The fake host's block devices: "<device> KEY=value" lines.
db="$FAKE/blkid.db"
touch "$db"
`;
const FAKE_COMMANDS: Record<string, string> = {
  // blkid -s KEY -o value DEV | -U UUID | -L LABEL | -o device -t KEY=value: as blkid, from the file.
  blkid: `${DISKS}echo "blkid $*" >> "$FAKE/log"
key="" tag="" dev=""
while [ "$#" -gt 0 ]; do
  case "$1" in
    -s) key="$2"; shift ;;
    -o) shift ;;
    -U) tag="UUID=$2"; shift ;;
    -L) tag="LABEL=$2"; shift ;;
    -t) tag="$2"; shift ;;
    *) dev="$1" ;;
  esac
  shift
done
if [ -n "$tag" ]; then
  hits="$(while read -r d t; do if [ "$t" = "$tag" ]; then echo "$d"; fi; done < "$db")"
  [ -n "$hits" ] || exit 2
  echo "$hits"
  exit 0
fi
while read -r d t; do if [ "$d" = "$dev" ] && [ "\${t%%=*}" = "$key" ]; then echo "\${t#*=}"; fi; done < "$db"
`,
  // lsblk -o NAME DEV: the disk and its partitions (DEV1, DEV2...); nothing is mounted.
  lsblk: `${DISKS}case "$*" in *MOUNTPOINT*) exit 0 ;; esac
dev="\${!#}"
echo "$dev"
while read -r d _; do case "$d" in "$dev"[0-9]*) echo "$d" ;; esac; done < "$db" | sort -u
`,
  // Wiping forgets what the disk and its partitions held; mkfs gives it a new UUID.
  wipefs: `${DISKS}echo "wipefs $*" >> "$FAKE/log"
dev="\${!#}"
grep -v "^$dev[0-9]* " "$db" > "$db.new" || true
mv "$db.new" "$db"
`,
  'mkfs.ext4': `${DISKS}echo "mkfs.ext4 $*" >> "$FAKE/log"
echo "\${!#} UUID=2f1e0d3c-new0-4000-8000-00000000abcd" >> "$db"
`,
  dumpe2fs: '#!/usr/bin/env bash\necho "Filesystem features: fake"\n',
  systemctl: '#!/usr/bin/env bash\necho "systemctl $*" >> "$FAKE/log"\n',
  mount: '#!/usr/bin/env bash\necho "mount $*" >> "$FAKE/log"\n',
  umount: '#!/usr/bin/env bash\necho "umount $*" >> "$FAKE/log"\n',
  mountpoint: '#!/usr/bin/env bash\nexit 1\n',
  // Docker answers and holds nothing.
  docker: '#!/usr/bin/env bash\necho "docker $*" >> "$FAKE/log"\n',
  // Deletes only inside the fake root.
  rm: `#!/usr/bin/env bash
for a in "$@"; do case "$a" in -*) ;; "$FAKE"/*) ;; *) echo "rm outside the fake root: $a" >&2; exit 1 ;; esac; done
exec /bin/rm "$@"
`,
};

/** The owner's filesystem on the data disk, before layerlab wiped it. */
const OLD_UUID = '9b2c6e51-0d7a-4c3e-8f11-5a6b7c8d9e0f';
/** A text with its dates (YYYY-MM-DD) replaced by DATE: a run may cross midnight. */
const undated = (text: string) => text.replace(/\d{4}-\d\d-\d\d/g, 'DATE');

/** A fake host: guest/ copied with its paths pointed here, the fake commands first on PATH. */
function fstabHost(name: string) {
  const dir = join(work, name);
  const guest = join(dir, 'guest');
  mkdirSync(join(guest, 'profiles'), { recursive: true });
  for (const file of ['lib.sh', 'cleanup.sh', 'profiles/overlay2-ext4.sh']) {
    cpSync(resolve(LIB, '..', file), join(guest, file));
  }
  appendFileSync(
    join(guest, 'lib.sh'),
    `\nLL_ROOT="$FAKE/opt-layerlab"; LL_STATE="$FAKE/state"; LL_WORK="$LL_STATE/work"; LL_BACKUP="$LL_STATE/backup"
LL_TRIAL_PIDFILE="$LL_WORK/trial.pid"; LL_DOCKER_DIR="$FAKE/var-lib-docker"; LL_BIND_ROOT="$LL_DOCKER_DIR/layerlab-bind"
LL_DAEMON_JSON="$FAKE/etc-docker/daemon.json"; LL_FSTAB="$FAKE/fstab"\n`,
  );
  const fakeBin = join(dir, 'bin');
  mkdirSync(fakeBin);
  for (const [command, text] of Object.entries(FAKE_COMMANDS)) {
    writeFileSync(join(fakeBin, command), text);
    chmodSync(join(fakeBin, command), 0o755);
  }
  writeFileSync(join(dir, 'log'), '');
  const docker = join(dir, 'var-lib-docker');
  return {
    dir,
    docker,
    backup: join(dir, 'state', 'backup'),
    fstab: join(dir, 'fstab'),
    /** Runs guest script `script` (or, with `-c`, bash code after sourcing lib.sh) as the controller would. */
    run(args: string[], env: Record<string, string> = {}) {
      const argv =
        args[0] === '-c'
          ? ['-c', `set -euo pipefail; source "$1"; ${args[1]}`, '_', join(guest, 'lib.sh')]
          : [join(guest, args[0] ?? '')];
      const r = spawnSync('bash', argv, {
        encoding: 'utf8',
        env: { PATH: `${fakeBin}:/usr/sbin:/usr/bin:/sbin:/bin`, FAKE: dir, HOME: dir, LL_ENGINE: 'docker', ...env },
      });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    },
    disks: (lines: string) => writeFileSync(join(dir, 'blkid.db'), lines),
    log: () => readFileSync(join(dir, 'log'), 'utf8'),
  };
}

describe("guest/lib.sh: the owner's fstab after the data disk was re-made (issue 35, N1)", () => {
  // The profile runs as root on a host: the fake data disk is a block device node, and root's folders are checked.
  const needsRoot = {
    skip: process.getuid?.() !== 0 && 'a profile runs as root (a block device node, root-owned folders)',
  };

  it(
    "prepare records the wiped filesystem; down comments the owner's line naming it out, with a note and a warning",
    needsRoot,
    () => {
      const host = fstabHost('reformatted');
      // A block device node that is no real disk (loop minor 250): `[ -b ]` passes, only the fakes touch it.
      const disk = join(host.dir, 'disk');
      assert.equal(spawnSync('mknod', [disk, 'b', '7', '250']).status, 0, 'mknod makes the fake data disk');
      host.disks(`/dev/fake-root UUID=0a1b2c3d-root-4000-8000-000000000001\n${disk} UUID=${OLD_UUID}\n`);
      const rootLine = 'UUID=0a1b2c3d-root-4000-8000-000000000001 / ext4 errors=remount-ro 0 1';
      const ownerLine = `UUID=${OLD_UUID} ${host.docker} ext4 defaults 0 2`;
      writeFileSync(host.fstab, `${rootLine}\ntmpfs /tmp tmpfs nosuid,nodev 0 0\n${ownerLine}\n`);

      const up = host.run(['profiles/overlay2-ext4.sh'], { LL_DATA_DISK: disk, LL_DEDICATED: '1' });
      assert.equal(up.code, 0, up.stderr);
      assert.match(host.log(), /^wipefs -a -q /m, 'the profile wiped the data disk');
      // Read now (down consumes the backup), checked last: first what the owner's next boot would meet.
      const idsFile = join(host.backup, 'data-disk.ids');
      const ids = existsSync(idsFile) ? readFileSync(idsFile, 'utf8') : '';
      const prepared = readFileSync(host.fstab, 'utf8');
      assert.match(prepared, /^UUID=2f1e0d3c-new0-4000-8000-00000000abcd /m, "layerlab's line, by the new UUID");
      assert.doesNotMatch(prepared, new RegExp(OLD_UUID), "the owner's line is set aside");

      const down = host.run(['cleanup.sh'], { LL_LAB: 'pv' });
      assert.equal(down.code, 0, down.stderr);
      const note = `# layerlab: disabled on DATE by \`layerlab down\`, filesystem gone: UUID=${OLD_UUID} was on data disk ${disk}, which layerlab wiped and re-made on DATE. Remove the '#' of the next line once it is back, or delete the line.`;
      assert.equal(
        undated(readFileSync(host.fstab, 'utf8')),
        `${rootLine}\ntmpfs /tmp tmpfs nosuid,nodev 0 0\n${note}\n#${ownerLine}\n`,
        "the owner's line kept but commented out under the note; every other line as it was",
      );
      assert.match(
        down.stdout,
        new RegExp(
          `^warning: ${host.fstab} line "${ownerLine}" disabled \\(filesystem gone: UUID=${OLD_UUID} was on data disk .*emergency mode.*point it at a filesystem that exists`,
          'm',
        ),
        'down warns, naming the line and what to do',
      );
      assert.match(down.stdout, /restored the owner's .* \(1 fstab line\(s\) disabled/, 'and says so at the end');
      assert.match(
        ids,
        new RegExp(`^\\d{4}-\\d\\d-\\d\\d UUID=${OLD_UUID}$`, 'm'),
        'what was on the disk, recorded before the wipe',
      );
      assert.match(ids, new RegExp(`^\\d{4}-\\d\\d-\\d\\d DISK=${disk}$`, 'm'), 'which disk it was');
    },
  );

  it('down reconciles every line with the disks present: gone ones disabled, present ones and nofail ones kept', () => {
    const host = fstabHost('reconcile');
    const disk = '/dev/fake-data';
    host.disks(
      [
        '/dev/fake-root UUID=0a1b2c3d-root-4000-8000-000000000001',
        '/dev/fake-root1 PARTUUID=1234abcd-01',
        '/dev/fake-home LABEL=my home',
        `${disk} UUID=2f1e0d3c-new0-4000-8000-00000000abcd`,
        '',
      ].join('\n'),
    );
    mkdirSync(host.backup, { recursive: true });
    writeFileSync(join(host.backup, 'complete'), '');
    // What an earlier prepare recorded: the owner's filesystem and its partition on the data disk.
    writeFileSync(
      join(host.backup, 'data-disk.ids'),
      `2026-01-02 DISK=${disk}\n2026-01-02 DEVICE=${disk}\n2026-01-02 DEVICE=${disk}1\n2026-01-02 UUID=${OLD_UUID}\n2026-01-02 PARTUUID=feedf00d-01\n`,
    );
    const ownerLine = `/dev/disk/by-uuid/${OLD_UUID.toUpperCase()} ${host.docker} ext4 defaults 0 2`;
    // A second line the owner had for /var/lib/docker: put back by layerlab, and nothing answers to it now.
    const ownerGoneLine = `LABEL=long-gone ${host.docker} ext4 defaults 0 2`;
    writeFileSync(join(host.backup, 'fstab.lines'), `${ownerLine}\n${ownerGoneLine}\n`);
    const kept = [
      '# the owner’s comment, and a blank line',
      '',
      'UUID=0a1b2c3d-root-4000-8000-000000000001 / ext4 errors=remount-ro 0 1',
      'PARTUUID=1234abcd-01\t/boot\text4\tdefaults\t0\t2',
      'LABEL=my\\040home /home ext4 defaults 0 2',
      'LABEL=usb-stick /media/usb vfat noauto,user 0 0',
      // Absent, but no disk layerlab wiped: the owner's line to fix, left as it was (with a warning).
      'LABEL=long-gone /archive ext4 defaults 0 2',
      'UUID=deadbeef-0000-4000-8000-000000000000 none swap sw 0 0',
      // The host's text reaches the operator's terminal only with its control characters shown as '?'.
      'LABEL=evil\x1b]0;owned\x07 /evil ext4 defaults 0 2',
      'proc /proc proc defaults 0 0',
      'server:/export /mnt/nfs nfs4 _netdev 0 0',
    ];
    const gone = ['PARTUUID=feedf00d-01 /srv ext4 defaults,nofail 0 2', `${disk}1 /scratch xfs defaults 0 0`];
    // The fstab as layerlab leaves it: its own line for /var/lib/docker, the owner's others.
    writeFileSync(
      host.fstab,
      [...kept, ...gone, `UUID=2f1e0d3c-new0-4000-8000-00000000abcd ${host.docker} ext4 defaults 0 0`, ''].join('\n'),
    );

    const down = host.run(['-c', 'll_restore_owner_setup']);
    assert.equal(down.code, 0, down.stderr);
    const lines = readFileSync(host.fstab, 'utf8').split('\n');
    for (const line of kept) assert.ok(lines.includes(line), `kept as it was: ${line}`);
    assert.ok(!lines.some((l) => l.includes('2f1e0d3c-new0')), "layerlab's line is gone");
    for (const line of [...gone, ownerLine, ownerGoneLine]) {
      const at = lines.indexOf(`#${line}`);
      assert.ok(at > 0, `commented out: ${line}`);
      assert.match(
        lines[at - 1] ?? '',
        /^# layerlab: disabled on \d{4}-\d\d-\d\d by `layerlab down`, filesystem gone: /,
        `a note above: ${line}`,
      );
      assert.ok(!lines.includes(line), `not left active: ${line}`);
    }
    const noteOf = (line: string) => lines[lines.indexOf(`#${line}`) - 1] ?? '';
    assert.match(
      noteOf(ownerLine),
      new RegExp(`UUID=${OLD_UUID} was on data disk ${disk}, which layerlab wiped and re-made on 2026-01-02`),
      'by UUID, whatever its case',
    );
    assert.match(
      noteOf(gone[0] ?? ''),
      /PARTUUID=feedf00d-01 was on data disk .* on 2026-01-02/,
      'nofail, but wiped by layerlab',
    );
    assert.match(
      noteOf(gone[1] ?? ''),
      /\/dev\/fake-data1 was on data disk/,
      'a partition of the data disk, by its device path',
    );
    assert.match(noteOf(ownerGoneLine), /nothing has LABEL=long-gone now/, 'a docker line nothing answers to');
    assert.match(
      down.stdout,
      /UUID=deadbeef-0000-4000-8000-000000000000 for none, which is not present now and not a disk layerlab wiped/,
      "an absent filesystem layerlab never touched is named, and left as the owner's",
    );
    assert.ok(
      !down.stdout.includes('\x1b') && !down.stdout.includes('\x07'),
      'no raw control character in the warnings',
    );
    const warnings = down.stdout.split('\n').filter((l) => l.startsWith('warning: '));
    assert.equal(
      warnings.length,
      8,
      `one warning per disabled line (4), one for the absent noauto line, three for absent lines not ours:\n${down.stdout}`,
    );
    assert.match(
      down.stdout,
      /LABEL=usb-stick, which is not present now; its line is nofail or noauto/,
      'the noauto line is named, left alone',
    );
    assert.match(down.stdout, /\(4 fstab line\(s\) disabled/, 'the count at the end');
  });
});

describe("guest/lib.sh: ll_docker_start writes the target's container network into daemon.json", () => {
  /** daemon.json as ll_docker_start writes it on a fake host, with LL_CONTAINER_NETWORK as given. */
  function daemonJson(name: string, env: Record<string, string>) {
    const host = fstabHost(name);
    const r = host.run(['-c', "ll_docker_start overlay2 '[]'"], env);
    const file = join(host.dir, 'etc-docker', 'daemon.json');
    return { ...r, json: existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {} };
  }

  it('none (local, static; also when unset): no bridge, no iptables, no NAT', () => {
    for (const [name, env] of [
      ['net-none', { LL_CONTAINER_NETWORK: 'none' }],
      ['net-unset', {}],
    ] as const) {
      const { code, stderr, json } = daemonJson(name, env);
      assert.equal(code, 0, stderr);
      assert.deepEqual(
        json,
        {
          'storage-driver': 'overlay2',
          'storage-opts': [],
          bridge: 'none',
          iptables: false,
          'ip-masq': false,
          'log-driver': 'json-file',
        },
        `${name}: the daemon runs without a network of its own`,
      );
    }
  });

  it("default (aws): Docker's own bridge, iptables and NAT, as the seed ran it: none of the three keys", () => {
    const { code, stderr, json } = daemonJson('net-default', { LL_CONTAINER_NETWORK: 'default' });
    assert.equal(code, 0, stderr);
    assert.deepEqual(json, { 'storage-driver': 'overlay2', 'storage-opts': [], 'log-driver': 'json-file' });
  });

  it('any other value stops the profile, naming it, before dockerd is touched', () => {
    const host = fstabHost('net-bad');
    const r = host.run(['-c', "ll_docker_start overlay2 '[]'"], { LL_CONTAINER_NETWORK: 'host' });
    assert.notEqual(r.code, 0, 'refused');
    assert.match(r.stderr, /LL_CONTAINER_NETWORK=host: expected none or default/);
    const own = libRun('ll_container_network', { LL_CONTAINER_NETWORK: 'host' });
    assert.equal(
      r.stderr,
      own.stderr,
      "ll_container_network's refusal, word for word (lifecycle's guest.sh says the same)",
    );
    assert.doesNotMatch(host.log(), /systemctl/, 'dockerd was not restarted');
  });
});

describe("guest/lib.sh: ll_container_network, the target's container network checked once for every caller", () => {
  it("none or unset: --network none for `docker run`; default: no argument (the engine's default network)", () => {
    for (const [value, expected] of [
      ['none', 'none|--network none'],
      [undefined, 'none|--network none'],
      ['default', 'default|'],
    ] as const) {
      const env: Record<string, string> = value === undefined ? {} : { LL_CONTAINER_NETWORK: value };
      const r = libRun('ll_container_network; printf \'%s|%s\' "$LL_NETWORK" "${LL_NETWORK_ARGS[*]}"', env);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, expected, `LL_CONTAINER_NETWORK=${value ?? '(unset)'}`);
    }
  });

  it('any other value stops the script, naming the value, where it comes from and what to do', () => {
    const r = libRun('ll_container_network; echo went on', { LL_CONTAINER_NETWORK: 'bridge' });
    assert.equal(r.status, 1, 'refused');
    assert.equal(r.stdout, '', 'nothing after it ran');
    assert.match(
      r.stderr,
      /^layerlab: LL_CONTAINER_NETWORK=bridge: expected none or default, the target's container network as lab\/catalog\.ts CONTAINER_NETWORK sets it \(.*by hand.*\)\n$/,
    );
  });
});

/** Runs `body` after sourcing lib.sh with `env`; returns the exit status and stderr. */
function libRun(body: string, env: Record<string, string>) {
  return spawnSync('bash', ['-c', `set -euo pipefail; source "$1"; ${body}`, '_', LIB], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
}

describe('guest/lib.sh: ll_phase', () => {
  it('appends "<phase> <seconds>" to $LL_OUT/phases, now or at the time given', () => {
    const out = mkdtempSync(join(work, 'phase-'));
    const r = libRun('ll_phase mount; ll_phase work 1700000000.250000', { LL_OUT: out });
    assert.equal(r.status, 0, r.stderr);
    const lines = readFileSync(join(out, 'phases'), 'utf8').split('\n');
    assert.match(lines[0] ?? '', /^mount [0-9]+\.[0-9]{6}$/);
    assert.equal(lines[1], 'work 1700000000.250000');
    assert.equal(lines[2], '', 'one line each, ending in a newline');
  });

  it("a locale's decimal comma becomes a point", () => {
    const out = mkdtempSync(join(work, 'phase-'));
    const r = libRun('ll_phase start 1700000000,5', { LL_OUT: out });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(readFileSync(join(out, 'phases'), 'utf8'), 'start 1700000000.5\n');
  });

  it('starts no process (a process costs tens of milliseconds under TCG): it works with no PATH', () => {
    const out = mkdtempSync(join(work, 'phase-'));
    const r = libRun('PATH=/nonexistent; ll_phase mount; ll_phase end', { LL_OUT: out });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(readFileSync(join(out, 'phases'), 'utf8').split('\n').length, 3, 'both marks written');
  });

  it('does nothing outside a trial (no LL_OUT)', () => {
    const r = libRun('unset LL_OUT; ll_phase mount; echo ok', {});
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'ok\n');
  });
});

describe('guest/lib.sh: ll_phase never fails a trial', () => {
  it('an output folder it cannot write to: no error, no message, the script goes on', () => {
    const r = libRun('ll_phase mount; echo on', { LL_OUT: join(work, 'no-such-folder') });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'on\n');
    assert.equal(r.stderr, '');
  });
});

/**
 * The Engine API path of ll_container_run and ll_mount_setup, against the
 * stand-in Engine API (guest-sandbox.ts): the container's output split from
 * the API's multiplexed log stream, and volumes made and removed through the
 * API, with no docker CLI start (half a second to a second each under TCG).
 */
const api = guestSandbox('lib-api');
api.fakeEngineApi();
// The docker CLI, logged: none of it is expected on the Engine API path.
api.fake('docker', 'printf \'docker %s\\n\' "$*" >> "$FAKE/calls"\n');

/** One frame of the Engine API's log stream: stream byte, 3 zero bytes, length (big-endian), payload. */
function frame(stream: number, payload: Buffer | string): Buffer {
  const body = Buffer.from(payload);
  const head = Buffer.alloc(8);
  head.writeUInt8(stream, 0);
  head.writeUInt32BE(body.length, 4);
  return Buffer.concat([head, body]);
}

/** Runs `body` after sourcing the sandbox's lib.sh, its log stream served in `parts`; returns status, stderr, calls, state. */
function apiRun(body: string, parts: Buffer[] = [], env: Record<string, string> = {}) {
  const fake = mkdtempSync(join(api.root, 'fake-'));
  parts.forEach((part, i) => writeFileSync(join(fake, `logs.${i + 1}`), part));
  const r = spawnSync(
    'bash',
    ['-c', `set -euo pipefail; source "$1"; ${body}`, '_', join(api.root, 'guest', 'lib.sh')],
    {
      encoding: 'utf8',
      env: { PATH: api.path, FAKE: fake, LL_ENGINE: 'docker', LL_LAB: 'lab1', LL_RUN: 'run1', ...env },
    },
  );
  const calls = existsSync(join(fake, 'calls')) ? readFileSync(join(fake, 'calls'), 'utf8').trim().split('\n') : [];
  return { status: r.status, stderr: r.stderr, calls, fake };
}

const RUN = 'll_mount_setup layer t1 /data; ll_container_run ll-t1 img "$FAKE/out" "$FAKE/err" fio --x';

describe("guest/lib.sh: ll_container_run's output from the Engine API, without the docker CLI", () => {
  it('splits the log stream into stdout and stderr byte for byte, frames cut anywhere', () => {
    const binary = Buffer.from([0x00, 0xff, 0xfe, 0x0a, 0x1b]);
    const stream = Buffer.concat([
      frame(1, '{"jobs":'),
      frame(2, 'fio: ünïcödé ✓\n'),
      frame(0, ''),
      frame(1, binary),
      frame(2, Buffer.from([0xc3, 0x28, 0x00])),
      frame(1, '[]}\n'),
    ]);
    // Cut inside the second frame's header, and inside the fourth frame's payload.
    const cuts = [frame(1, '{"jobs":').length + 3, stream.length - 20];
    const parts = [stream.subarray(0, cuts[0]), stream.subarray(cuts[0], cuts[1]), stream.subarray(cuts[1])];
    const r = apiRun(RUN, parts);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(
      readFileSync(join(r.fake, 'out')),
      Buffer.concat([Buffer.from('{"jobs":'), binary, Buffer.from('[]}\n')]),
      'stdout: the frames of streams 1 (and 0), in order, every byte',
    );
    assert.deepEqual(
      readFileSync(join(r.fake, 'err')),
      Buffer.concat([Buffer.from('fio: ünïcödé ✓\n'), Buffer.from([0xc3, 0x28, 0x00])]),
      'stderr: the frames of stream 2, in order, every byte',
    );
    assert.deepEqual(
      r.calls.filter((c) => !c.startsWith('curl ')),
      [],
      'no docker CLI: create and start, wait, logs, delete through curl',
    );
    assert.equal(r.calls.length, 4, `one curl for create and start, then wait, logs, delete: ${r.calls.join(' | ')}`);
    assert.ok(!existsSync(join(r.fake, 'container')), 'the container is removed');
  });

  it('an empty output: both files made, empty', () => {
    const r = apiRun(`echo stale > "$FAKE/out"; echo stale > "$FAKE/err"; ${RUN}`);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(readFileSync(join(r.fake, 'out'), 'utf8'), '', 'stdout empty');
    assert.equal(readFileSync(join(r.fake, 'err'), 'utf8'), '', 'stderr empty');
    assert.ok(!r.calls.some((c) => c.startsWith('docker ')), `no docker CLI: ${r.calls.join(' | ')}`);
  });

  it('a stream cut short, or one it does not know, fails the run and says why', () => {
    const whole = frame(1, 'hello');
    const cases: [Buffer, RegExp][] = [
      [whole.subarray(0, 5), /the log stream ends inside a frame header/],
      [whole.subarray(0, 10), /the log stream ends inside a frame \(3 bytes missing\)/],
      [frame(7, 'x'), /the log stream has a frame of unknown stream 7/],
      [Buffer.concat([whole, frame(3, 'error from daemon')]), /the engine: error from daemon/],
    ];
    for (const [stream, why] of cases) {
      const r = apiRun(RUN, [stream]);
      assert.notEqual(r.status, 0, `fails: ${why}`);
      assert.match(r.stderr, why);
      assert.match(r.stderr, /cannot read the output of container ll-t1 from the Engine API/);
    }
  });

  it('a host without perl: the output from `docker logs`, the rest still through the API', () => {
    // PATH without perl: the fakes, and links to the few commands they need.
    const tools = mkdtempSync(join(api.root, 'tools-'));
    for (const tool of ['bash', 'cat', 'rm', 'sleep']) {
      const at = spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
      symlinkSync(at, join(tools, tool));
    }
    const r = apiRun(RUN, [frame(1, 'not read')], { PATH: `${api.bin}:${tools}` });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(
      r.calls.filter((c) => c.startsWith('docker ')),
      [`docker logs ${FAKE_CONTAINER_ID}`],
      'only the logs through the CLI',
    );
    assert.equal(r.calls.filter((c) => c.startsWith('curl ')).length, 3, 'create and start, wait, delete');
  });
});

describe('guest/lib.sh: ll_api_container_start with read-only binds besides the storage', () => {
  /** The create request's body in the calls of a run. */
  const created = (calls: string[]) => {
    const body = calls.join('\n').match(/--data-binary (\{.*\}) http:\/\/docker\/containers\/create/)?.[1];
    assert.ok(body, `a create request: ${calls.join(' | ')}`);
    return JSON.parse(body);
  };

  it('--ro-bind SOURCE TARGET: a read-only bind after the storage; none asked, the storage alone', () => {
    const r = apiRun(
      'll_mount_setup volume t1 /var/lib/mysql; ll_api_container_start --ro-bind "/t p/datadir" /ll-template ll-t1 img sh -c x',
    );
    assert.equal(r.status, 0, r.stderr);
    const body = created(r.calls);
    assert.deepEqual(body.HostConfig.Mounts, [
      { Type: 'volume', Source: 'll-t1', Target: '/var/lib/mysql' },
      { Type: 'bind', Source: '/t p/datadir', Target: '/ll-template', ReadOnly: true },
    ]);
    assert.equal(body.HostConfig.NetworkMode, 'none', 'no network');
    assert.deepEqual(body.Cmd, ['sh', '-c', 'x'], 'the command after the options');
    const layer = apiRun('ll_mount_setup layer t1 /d; ll_api_container_start --ro-bind /a /b ll-t1 img true');
    assert.deepEqual(created(layer.calls).HostConfig.Mounts, [
      { Type: 'bind', Source: '/a', Target: '/b', ReadOnly: true },
    ]);
    const plain = apiRun('ll_mount_setup bind t1 /d; LL_BIND_ROOT=/x; ll_api_container_start ll-t1 img true', [], {});
    assert.equal(plain.status, 0, plain.stderr);
    assert.equal(created(plain.calls).HostConfig.Mounts.length, 1, 'the storage alone');
  });

  it("ll_container_output with one file for both: the streams in it, in the stream's order", () => {
    const stream = Buffer.concat([frame(2, 'a\n'), frame(1, 'b\n'), frame(2, 'c\n')]);
    const r = apiRun('ll_container_output ll-t1 id "$FAKE/both" "$FAKE/both"', [stream]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(readFileSync(join(r.fake, 'both'), 'utf8'), 'a\nb\nc\n', 'as docker logs > FILE 2>&1');
  });
});

describe('guest/lib.sh: volumes through the Engine API where containers start through it', () => {
  it("made fresh (one curl), labelled as ll_label_args labels the CLI's, removed; Podman and LL_CONTAINER_START=cli keep the CLI", () => {
    const r = apiRun(
      'LL_KEPT=cell ll_mount_setup volume t1 /data; cat "$FAKE/volume-ll-t1" > "$FAKE/made"; ll_mount_cleanup',
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal(
      readFileSync(join(r.fake, 'made'), 'utf8'),
      '{"Name":"ll-t1","Labels":{"layerlab.lab":"lab1","layerlab.run":"run1","layerlab.kept":"cell"}}',
      'the labels of ll_label_args, lab, run and kept',
    );
    assert.equal(r.calls.length, 2, `one curl makes it, one removes it: ${r.calls.join(' | ')}`);
    assert.match(r.calls[0] ?? '', /-X DELETE http:\/\/docker\/volumes\/ll-t1\?force=true --next .*volumes\/create$/);
    assert.match(r.calls[1] ?? '', /-X DELETE http:\/\/docker\/volumes\/ll-t1\?force=true$/);
    assert.ok(!existsSync(join(r.fake, 'volume-ll-t1')), 'the volume is gone');
    for (const env of [{ LL_ENGINE: 'podman' }, { LL_CONTAINER_START: 'cli' }]) {
      const cli = spawnSync(
        'bash',
        ['-c', 'set -euo pipefail; source "$1"; ll_mount_setup volume t1 /data; ll_mount_cleanup', '_', LIB],
        {
          encoding: 'utf8',
          env: {
            ...process.env,
            PATH: `${bin}:${process.env.PATH}`,
            ENGINE_LOG: join(work, 'cli.log'),
            LL_ENGINE: 'docker',
            LL_LAB: 'lab1',
            ...env,
          },
        },
      );
      assert.equal(cli.status, 0, cli.stderr);
    }
    const engine = readFileSync(join(work, 'cli.log'), 'utf8').trim().split('\n');
    assert.deepEqual(engine, [
      'podman volume rm -f ll-t1',
      'podman volume create --label layerlab.lab=lab1 ll-t1',
      'podman volume rm -f ll-t1',
      'docker volume rm -f ll-t1',
      'docker volume create --label layerlab.lab=lab1 ll-t1',
      'docker volume rm -f ll-t1',
    ]);
  });
});

describe('guest/lib.sh: a bind source made fresh', () => {
  it('no rm process when nothing is there (the usual case); what is there is removed', () => {
    api.fake('rm', 'printf \'rm %s\\n\' "$*" >> "$FAKE/calls"\nexec /bin/rm "$@"\n');
    try {
      const setup = 'LL_BIND_ROOT="$FAKE/bind"; ll_mount_setup bind t1 /data; touch "$FAKE/bind/ll-t1/old"';
      const r = apiRun(`${setup}; ll_mount_setup bind t1 /data; ls -A "$FAKE/bind/ll-t1" > "$FAKE/left"`);
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(
        r.calls.filter((c) => c.includes(r.fake)),
        [`rm -rf -- ${join(r.fake, 'bind', 'll-t1')}`],
        'rm only for the second, over the first',
      );
      assert.equal(readFileSync(join(r.fake, 'left'), 'utf8'), '', 'the folder is empty again');
    } finally {
      rmSync(join(api.bin, 'rm'));
    }
  });
});

describe("guest/lib.sh: a scenario's containers listed and removed, through the Engine API where it is used", () => {
  const LIST = 'll_container_ids layerlab.lab "^ll-t1-"; printf "%s\\n" "${LL_CONTAINER_IDS[@]}" > "$FAKE/ids"';

  it('listed in one curl (label and name, stopped ones too), removed in one curl; no container, no removal', () => {
    const r = apiRun(
      `: > "$FAKE/container"; ${LIST}; ll_containers_rm "\${LL_CONTAINER_IDS[@]}" a-name; ll_containers_rm`,
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal(readFileSync(join(r.fake, 'ids'), 'utf8'), `${FAKE_CONTAINER_ID}\n`, 'the id the API listed');
    assert.equal(r.calls.length, 2, `one curl lists, one removes both: ${r.calls.join(' | ')}`);
    assert.match(
      r.calls[0] ?? '',
      / -G --data all=1 --data-urlencode filters=\{"label":\["layerlab\.lab"\],"name":\["\^ll-t1-"\]\} http:\/\/docker\/containers\/json$/,
    );
    assert.match(
      r.calls[1] ?? '',
      new RegExp(
        `-X DELETE http://docker/containers/${FAKE_CONTAINER_ID}\\?force=true&v=true --next .*-o /dev/null -X DELETE http://docker/containers/a-name\\?force=true&v=true$`,
      ),
    );
    assert.ok(!existsSync(join(r.fake, 'container')), 'the container is removed');
  });

  it('an API that fails to list stops the script, saying what failed', () => {
    const r = apiRun(`: > "$FAKE/fail-containers"; ${LIST}; echo went on`);
    assert.notEqual(r.status, 0, 'refused');
    assert.match(
      r.stderr,
      /the Engine API did not list the containers labelled layerlab\.lab and named \^ll-t1-: .*fake failure/,
    );
  });

  it('Podman and LL_CONTAINER_START=cli: `ps -aq` with both filters, one `rm -f` for all', () => {
    const body = 'll_container_ids layerlab.lab "^ll-t1-"; ll_containers_rm a b; ll_containers_rm';
    assert.deepEqual(engineCalls('podman', body), [
      'podman ps -aq --filter label=layerlab.lab --filter name=^ll-t1-',
      'podman rm -f a b',
    ]);
    assert.deepEqual(engineCalls('docker', `LL_CONTAINER_START=cli; ${body}`), [
      'docker ps -aq --filter label=layerlab.lab --filter name=^ll-t1-',
      'docker rm -f a b',
    ]);
  });
});
