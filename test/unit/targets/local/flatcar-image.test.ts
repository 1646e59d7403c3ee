/**
 * A local Flatcar host booted from the QEMU image the user supplies: the
 * Ignition config (shared with the AWS program), the QEMU command line, the
 * overlay on the user's file (real qemu-img and qemu-io, nothing booted) and
 * the validation refusals (exit 2 with file:line). No Flatcar image exists
 * here: the "images" are files made by qemu-img, checked as files only.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { FLATCAR_HOST_KEY_SCRIPT, IGNITION_VERSION, flatcarIgnition } from '../../../../infra/aws/user-data.ts';
import { parseLabDefinition } from '../../../../lab/definition/load.ts';
import type { HostDefinition } from '../../../../lab/definition/schema.ts';
import { UserError } from '../../../../lab/errors.ts';
import {
  FLATCAR_FW_CFG_NAME,
  flatcarImageKey,
  localLoginUser,
  rootBacking,
  writeFlatcarBoot,
} from '../../../../lab/targets/local/flatcar-boot.ts';
import { MIN_RAW_IMAGE_BYTES, checkUserImage } from '../../../../lab/targets/local/flatcar-image.ts';
import type { GuestImage } from '../../../../lab/targets/local/image.ts';
import { freshDisks, localDown } from '../../../../lab/targets/local/local.ts';
import { qemuArgs } from '../../../../lab/targets/local/qemu.ts';
import { generateHostKeys } from '../../../../lab/targets/local/seed.ts';
import { LocalStateStore, labStateDir } from '../../../../lab/targets/local/state.ts';
import { HostLog } from '../../../../lab/util/log.ts';
import { needs } from '../../installed.ts';

const BIN = resolve(import.meta.dirname, '..', '..', '..', '..', 'bin', 'layerlab.js');
const work = mkdtempSync(join(tmpdir(), 'layerlab-flatcar-'));
after(() => rmSync(work, { recursive: true, force: true }));

interface IgnitionFile {
  path: string;
  mode: number;
  overwrite: boolean;
  contents: { source: string };
}
interface Ignition {
  ignition: { version: string };
  passwd: { users: { name: string; sshAuthorizedKeys: string[] }[] };
  storage: { files: IgnitionFile[] };
  systemd: { units: { name: string; enabled: boolean; contents?: string }[] };
}

/** The text of a file entry's data: URL. */
function fileText(file: IgnitionFile | undefined): string {
  assert.ok(file, 'the file is in the config');
  const [head, data] = file.contents.source.split(',');
  assert.equal(head, 'data:text/plain;base64');
  return Buffer.from(String(data), 'base64').toString();
}

function qemuImg(...args: string[]): string {
  const r = spawnSync('qemu-img', args, { encoding: 'utf8' });
  assert.equal(r.status, 0, `qemu-img ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** A lab file in its own folder of `work`; returns its path. */
function labFile(folder: string, hostLines: string, target = 'local'): string {
  const dir = join(work, folder);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'lab.yaml');
  const text = `name: fc
target: { kind: ${target} }
hosts:
  - name: fc
${hostLines}
scenarios:
  fio: { size: 16M }
mounts: [layer, volume]
repetitions: 2
`;
  writeFileSync(file, text);
  return file;
}

function refusal(file: string): string {
  try {
    parseLabDefinition(readFileSync(file, 'utf8'), file);
  } catch (err) {
    assert.ok(err instanceof UserError, 'a UserError');
    assert.equal(err.exitCode, 2);
    return err.message;
  }
  assert.fail('expected the lab to be refused');
}

/**
 * A small real qcow2 file: what validation takes for a Flatcar image (it
 * cannot tell more). Without qemu-img, a file with qcow2's magic stands in
 * for validation, and the tests of the disks, which need the tools, skip.
 */
const qcow2Image = join(work, 'images', 'flatcar_production_qemu_image.img');
mkdirSync(join(work, 'images'));
const diskTools = needs('qemu-img', 'qemu-io');
if (diskTools) writeFileSync(qcow2Image, Buffer.concat([Buffer.from('QFI\xfb', 'latin1'), Buffer.alloc(508)]));
else qemuImg('create', '-q', '-f', 'qcow2', qcow2Image, '64M');

describe('local Flatcar: Ignition (one generator with the AWS program)', () => {
  const keys = generateHostKeys('fc-test');
  const local = JSON.parse(
    flatcarIgnition(keys.clientPublic, {
      hostname: 'fc',
      hostKey: { private: keys.hostPrivate, public: keys.hostPublic },
    }),
  ) as Ignition;
  const aws = JSON.parse(flatcarIgnition(keys.clientPublic)) as Ignition;

  it('core gets the lab key; the host key pair and hostname are files with the right modes', () => {
    assert.equal(local.ignition.version, IGNITION_VERSION);
    assert.deepEqual(local.passwd.users, [{ name: 'core', sshAuthorizedKeys: [keys.clientPublic.trim()] }]);
    const file = (path: string) => local.storage.files.find((f) => f.path === path);
    assert.equal(fileText(file('/etc/ssh/ssh_host_ed25519_key')), `${keys.hostPrivate.trim()}\n`);
    assert.equal(file('/etc/ssh/ssh_host_ed25519_key')?.mode, 0o600);
    assert.equal(fileText(file('/etc/ssh/ssh_host_ed25519_key.pub')), `${keys.hostPublic.trim()}\n`);
    assert.equal(file('/etc/ssh/ssh_host_ed25519_key.pub')?.mode, 0o644);
    assert.equal(fileText(file('/etc/hostname')), 'fc\n');
    assert.ok(
      local.storage.files.every((f) => f.overwrite),
      'every file replaces what the image ships',
    );
  });

  it('units: docker waits for the profile; the console unit prints the (now known) host key', () => {
    assert.deepEqual(
      local.systemd.units.map((u) => [u.name, u.enabled]),
      [
        ['docker.service', false],
        ['docker.socket', false],
        ['layerlab-host-key.service', true],
      ],
    );
    const script = fileText(local.storage.files.find((f) => f.path === FLATCAR_HOST_KEY_SCRIPT));
    assert.match(script, /ssh-keygen -A/, 'makes only the keys that are missing: ours stays');
  });

  it('the AWS config is the local one without the host key and hostname: nothing copied, nothing secret on AWS', () => {
    const extra = ['/etc/ssh/ssh_host_ed25519_key', '/etc/ssh/ssh_host_ed25519_key.pub', '/etc/hostname'];
    assert.deepEqual(aws, {
      ...local,
      storage: { files: local.storage.files.filter((f) => !extra.includes(f.path)) },
    });
  });

  it('writeFlatcarBoot writes that config 0600 in the host folder', async () => {
    const dir = join(work, 'boot-host');
    mkdirSync(dir);
    const host = { name: 'fc', profile: 'flatcar', image: qcow2Image } as HostDefinition;
    const boot = await writeFlatcarBoot(dir, host, keys);
    assert.equal(boot.ignition, join(dir, 'ignition.json'));
    assert.equal(boot.image, qcow2Image);
    assert.equal(statSync(boot.ignition).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(readFileSync(boot.ignition, 'utf8')), local);
    await assert.rejects(writeFlatcarBoot(dir, { ...host, image: undefined }, keys), /names no image/);
  });
});

describe('local Flatcar: the QEMU command line', () => {
  const dir = join(work, 'state', 'fc,host');
  const debianImage = {
    key: 'k',
    release: 'debian-12',
    dir,
    base: '/g/base.raw',
    kernel: '/g/vmlinuz',
    initrd: '/g/initrd',
  };
  const vm = {
    name: 'lab-fc',
    dir,
    image: debianImage as GuestImage,
    cpus: 2,
    memoryMiB: 2048,
    port: 40022,
    accel: 'tcg' as const,
    tcgCacheMiB: 1024,
    diskAio: 'native' as const,
  };
  const flatcar = { ignition: join(dir, 'ignition.json'), image: qcow2Image };
  const args = qemuArgs({ ...vm, flatcar });
  const valuesOf = (flag: string) => args.filter((_, i) => args[i - 1] === flag);
  const esc = (p: string) => p.replaceAll(',', ',,');

  it('boots the image through the firmware: no kernel, no initrd, no seed disk', () => {
    for (const flag of ['-kernel', '-initrd', '-append']) assert.equal(args.includes(flag), false, `no ${flag}`);
    assert.equal(
      valuesOf('-drive').some((d) => d.includes('seed.tar')),
      false,
      'no seed disk',
    );
  });

  it('hands the Ignition config over as Flatcar documents (fw_cfg opt/org.flatcar-linux/config)', () => {
    assert.equal(FLATCAR_FW_CFG_NAME, 'opt/org.flatcar-linux/config');
    assert.deepEqual(valuesOf('-fw_cfg'), [`name=opt/org.flatcar-linux/config,file=${esc(flatcar.ignition)}`]);
  });

  it('root: the per-lab overlay (bootable), data: its own raw disk with the lldata serial', () => {
    assert.deepEqual(valuesOf('-drive'), [
      `file=${esc(join(dir, 'root.qcow2'))},if=none,id=root,format=qcow2,cache=none,aio=native`,
      `file=${esc(join(dir, 'data.raw'))},if=none,id=data,format=raw,cache=none,aio=native`,
    ]);
    assert.deepEqual(valuesOf('-device'), [
      'virtio-blk-pci,drive=root,bootindex=0',
      'virtio-blk-pci,drive=data,serial=lldata',
    ]);
    assert.equal(
      args.some((a) => a.includes(qcow2Image)),
      false,
      "the user's image is never a drive of its own: only the overlay's backing file",
    );
  });

  it('network: SSH forward on 127.0.0.1 only, restrict=on', () => {
    assert.deepEqual(valuesOf('-nic'), ['user,model=virtio-net-pci,restrict=on,hostfwd=tcp:127.0.0.1:40022-:22']);
  });

  it('a Debian host keeps its kernel boot and seed disk', () => {
    const debian = qemuArgs(vm);
    assert.equal(debian.includes('-fw_cfg'), false, 'no fw_cfg');
    assert.equal(debian[debian.indexOf('-kernel') + 1], '/g/vmlinuz');
    assert.match(debian[debian.indexOf('-append') + 1] ?? '', / panic=1( |$)/, 'a panicking guest kernel reboots');
    assert.ok(debian.includes('virtio-blk-pci,drive=seed,serial=llseed'), 'seed disk');
    assert.ok(debian.includes('virtio-blk-pci,drive=root'), 'root device without bootindex');
  });

  it('logs in as core (sudo), as on AWS; Debian hosts as root', () => {
    assert.equal(localLoginUser('flatcar'), 'core');
    assert.equal(localLoginUser('overlay2-xfs'), 'root');
  });
});

describe("local Flatcar: disks (real qemu-img; the user's file is never written)", () => {
  it("the root disk is a qcow2 overlay on the user's image; the data disk is raw of diskGiB", async (t) => {
    if (diskTools) return t.skip(diskTools);
    const dir = join(work, 'disks');
    mkdirSync(dir);
    const before = sha256(qcow2Image);
    const host = { name: 'fc', profile: 'flatcar', image: qcow2Image, diskGiB: 3 } as HostDefinition;
    const backing = rootBacking(host, {} as GuestImage);
    assert.deepEqual(backing, { file: qcow2Image, format: 'qcow2' });
    const log = new HostLog(join(dir, 'host.log'));
    try {
      await freshDisks(dir, host, backing, log);
    } finally {
      await log.close();
    }
    const info = JSON.parse(qemuImg('info', '--output=json', join(dir, 'root.qcow2'))) as Record<string, unknown>;
    assert.equal(info.format, 'qcow2');
    assert.equal(info['backing-filename'], qcow2Image);
    assert.equal(info['backing-filename-format'], 'qcow2');
    assert.equal(statSync(join(dir, 'data.raw')).size, 3 * 1024 ** 3);
    // What the guest writes lands in the overlay only.
    const io = spawnSync('qemu-io', ['-f', 'qcow2', '-c', 'write -P 0xab 0 1M', join(dir, 'root.qcow2')], {
      encoding: 'utf8',
    });
    assert.equal(io.status, 0, io.stderr);
    assert.equal(sha256(qcow2Image), before, "the user's image is unchanged");
    const read = spawnSync('qemu-io', ['-f', 'qcow2', '-c', 'read -P 0xab 0 1M', join(dir, 'root.qcow2')], {
      encoding: 'utf8',
    });
    assert.equal(read.status, 0, 'the overlay holds the write');
    assert.doesNotMatch(read.stdout, /Pattern verification failed/);
  });

  it("`down` removes the lab's overlay and data disk, never the user's image", async (t) => {
    if (diskTools) return t.skip(diskTools);
    const saved = process.env.LAYERLAB_HOME;
    process.env.LAYERLAB_HOME = join(work, 'down-home');
    try {
      const store = LocalStateStore.openOrCreate('fcdown', join(work, 'lab.yaml'));
      const dir = join(labStateDir('fcdown'), 'hosts', 'fc');
      mkdirSync(dir, { recursive: true });
      store.update('fc', { name: 'fc', profile: 'flatcar', dir, imageKey: flatcarImageKey(qcow2Image) });
      const host = { name: 'fc', profile: 'flatcar', image: qcow2Image, diskGiB: 1 } as HostDefinition;
      const log = new HostLog(join(dir, 'host.log'));
      try {
        await freshDisks(dir, host, rootBacking(host, {} as GuestImage), log);
      } finally {
        await log.close();
      }
      const before = sha256(qcow2Image);
      await localDown('fcdown', 0);
      assert.equal(existsSync(labStateDir('fcdown')), false, 'the lab state (overlay, data disk) is gone');
      assert.equal(sha256(qcow2Image), before, "the user's image is still there, unchanged");
    } finally {
      if (saved === undefined) Reflect.deleteProperty(process.env, 'LAYERLAB_HOME');
      else process.env.LAYERLAB_HOME = saved;
    }
  });

  it('the image key recorded for a host names its image', () => {
    assert.equal(flatcarImageKey('/x/flatcar.img'), 'flatcar:/x/flatcar.img');
  });
});

describe('local Flatcar: validation', () => {
  it('accepts a local flatcar host naming a qcow2 image relative to the lab file; the path becomes absolute', () => {
    const file = labFile('ok', '    profile: flatcar\n    image: ../images/flatcar_production_qemu_image.img');
    const lab = parseLabDefinition(readFileSync(file, 'utf8'), file);
    assert.equal(lab.hosts[0]?.image, qcow2Image);
  });

  it('tells qcow2 from raw by the first bytes, as qemu-img does; raw needs a plausible size', () => {
    const raw = join(work, 'images', 'disk.raw');
    writeFileSync(raw, '');
    truncateSync(raw, MIN_RAW_IMAGE_BYTES);
    assert.deepEqual(checkUserImage(raw), { format: 'raw' });
    assert.deepEqual(checkUserImage(qcow2Image), { format: 'qcow2' });
    // qemu-img, where it is installed, agrees.
    for (const path of diskTools ? [] : [raw, qcow2Image]) {
      const info = JSON.parse(qemuImg('info', '--output=json', path)) as { format: string };
      assert.deepEqual(checkUserImage(path), { format: info.format }, path);
    }
    const odd = join(work, 'images', 'odd.raw');
    writeFileSync(odd, '');
    truncateSync(odd, MIN_RAW_IMAGE_BYTES + 100);
    assert.match(JSON.stringify(checkUserImage(odd)), /neither qcow2 nor a plausible raw disk/);
  });

  it('refuses image: on a non-local target, with file:line', () => {
    const file = labFile('aws', `    profile: flatcar\n    image: ${qcow2Image}`, 'aws');
    assert.match(refusal(file), /lab\.yaml:6:12: hosts\[0\]\.image: image: applies to target local only/);
  });

  it('refuses image: on a profile that boots the Debian guest image', () => {
    const file = labFile('debian', `    profile: overlay2-xfs\n    image: ${qcow2Image}`);
    assert.match(
      refusal(file),
      /lab\.yaml:6:12: hosts\[0\]\.image: profile overlay2-xfs boots layerlab's own Debian guest image; image: is only for profile flatcar/,
    );
  });

  it('refuses a missing file, naming where it looked', () => {
    const file = labFile('missing', '    profile: flatcar\n    image: nowhere.img');
    assert.match(
      refusal(file),
      new RegExp(`lab\\.yaml:6:12: hosts\\[0\\]\\.image: ${join(work, 'missing', 'nowhere.img')}: no such file`),
    );
  });

  it('refuses a compressed download and a small file that is no disk', () => {
    writeFileSync(join(work, 'images', 'flatcar.img.bz2'), 'BZh91AY&SY\u0000\u0001');
    writeFileSync(join(work, 'images', 'notes.txt'), 'not a disk\n');
    const bz2 = labFile('bz2', '    profile: flatcar\n    image: ../images/flatcar.img.bz2');
    assert.match(refusal(bz2), /is bzip2-compressed, not a qcow2 or raw disk image: decompress it first/);
    const txt = labFile('txt', '    profile: flatcar\n    image: ../images/notes.txt');
    assert.match(refusal(txt), /lab\.yaml:6:12: .*notes\.txt is neither qcow2 nor a plausible raw disk \(11 bytes/);
    const folder = labFile('folder', '    profile: flatcar\n    image: ../images');
    assert.match(refusal(folder), /images is not a regular file/);
  });

  it('refuses a local flatcar host without image:, saying how to get and name the image', () => {
    const file = labFile('noimage', '    profile: flatcar');
    assert.match(
      refusal(file),
      /lab\.yaml:5:14: hosts\[0\]\.profile: profile flatcar cannot run on target local \(runs on aws, static\) without image: download Flatcar's QEMU image \(https:\/\/stable\.release\.flatcar-linux\.net\/amd64-usr\/current\/flatcar_production_qemu_image\.img\), keep it as flatcar_production_qemu_image\.img and name it in this host as `image: flatcar_production_qemu_image\.img`/,
    );
  });

  it('`layerlab validate` exits 2 with the refusal', () => {
    const file = labFile('cli', '    profile: flatcar\n    image: nowhere.img');
    const r = spawnSync(process.execPath, [BIN, 'validate', file], {
      cwd: work,
      encoding: 'utf8',
      env: { ...process.env, LAYERLAB_HOME: join(work, 'home') },
    });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /cli\/lab\.yaml:6:12: hosts\[0\]\.image: .*nowhere\.img: no such file/);
  });
});
