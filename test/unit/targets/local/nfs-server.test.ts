/**
 * The shared-folder mount kinds' machine side. hostshare-nfs: the ganesha
 * config, the guestfwd rule on the VM's NIC, and a real nfs-ganesha started,
 * found by its recorded pid, listening on 127.0.0.1 only, and stopped.
 * hostshare-9p: QEMU's virtio-9p arguments and the generic kernel its lab
 * boots. The guest side (mounting them, fio, dbench and db-import on them)
 * is the scenarios e2e's.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { MOUNT_KINDS, SHARED_FOLDER_MOUNTS, sharesOf } from '../../../../lab/catalog.ts';
import { parseLabDefinition } from '../../../../lab/definition/load.ts';
import { SHARE_TAG } from '../../../../lab/targets/local/hostshare.ts';
import { guestImageKey } from '../../../../lab/targets/local/image.ts';
import { kernelFlavourOf } from '../../../../lab/targets/local/local.ts';
import {
  isMountPoint,
  isOurNfsServer,
  listensOn,
  mountExport,
  startNfsServer,
  stopNfsServer,
  unmountExport,
} from '../../../../lab/targets/local/nfs-server.ts';
import {
  NFS_ANON_ID,
  NFS_EXPORT,
  NFS_GUEST_ADDRESS,
  findNfsTools,
  ganeshaConfig,
  nfsFiles,
  nfsGuestfwd,
} from '../../../../lab/targets/local/nfs-share.ts';
import { NINEP_TAG } from '../../../../lab/targets/local/ninep-share.ts';
import { qemuArgs } from '../../../../lab/targets/local/qemu.ts';
import { HostLog } from '../../../../lab/util/log.ts';
import { sleep } from '../../../../lab/util/time.ts';

/** True once a connection to 127.0.0.1:port is refused (within 2 s). */
async function closedSoon(port: number): Promise<boolean> {
  for (let i = 0; i < 20; i++) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', () => resolve(true));
    });
    if (refused) return true;
    await sleep(100);
  }
  return false;
}

const work = mkdtempSync(join(tmpdir(), 'layerlab-nfs-'));
after(() => rmSync(work, { recursive: true, force: true }));

const vm = {
  name: 'x-a',
  dir: '/s/a',
  image: { key: 'k', release: 'debian-12', dir: '/img', base: '/img/base.qcow2', kernel: '/k', initrd: '/i' },
  cpus: 1,
  memoryMiB: 512,
  port: 2222,
  accel: 'tcg',
  tcgCacheMiB: 1024,
  diskAio: 'native',
} as const;

describe('hostshare-9p', () => {
  it('QEMU serves the folder itself over virtio-9p, owners mapped into xattrs', () => {
    const args = qemuArgs({ ...vm, dir: '/s/a,b', ninep: true });
    const fsdev = args[args.indexOf('-fsdev') + 1];
    assert.equal(
      fsdev,
      'local,id=ll9p,path=/s/a,,b/9p-share,security_model=mapped-xattr',
      'a comma in the path is doubled',
    );
    assert.ok(args.includes('virtio-9p-pci,fsdev=ll9p,mount_tag=ll9p'), 'the device the guest mounts by tag');
    assert.ok(!qemuArgs(vm).includes('-fsdev'), 'no folder unless the lab lists hostshare-9p');
  });

  it('its lab boots the generic kernel, the others the cloud kernel; each is its own image', async () => {
    const lab = (mounts: string) =>
      parseLabDefinition(
        `name: k\nhosts: [{ name: a, profile: overlay2-xfs }]\nscenarios: { fio: {} }\nmounts: [${mounts}]\nrepetitions: 1\n`,
        'k.yaml',
      );
    assert.equal(kernelFlavourOf(lab('layer, hostshare-9p')), 'generic');
    assert.equal(kernelFlavourOf(lab('layer, hostshare, hostshare-nfs')), 'cloud');
    assert.notEqual(await guestImageKey('debian-12', 'generic'), await guestImageKey('debian-12', 'cloud'));
    const lists = (flavour: string) => readFileSync(`lab/targets/local/image/kernel.${flavour}.txt`, 'utf8');
    assert.match(lists('generic'), /^linux-image-amd64$/m);
    assert.match(lists('cloud'), /^linux-image-cloud-amd64$/m);
    assert.doesNotMatch(
      readFileSync('lab/targets/local/image/packages.txt', 'utf8'),
      /^linux-image/m,
      'the kernel comes from one list only, or build.sh would boot whichever sorts last',
    );
  });
});

describe('hostshare-nfs', () => {
  it('is a shared-folder kind of the local target, beside virtiofs and 9p', () => {
    assert.deepEqual(SHARED_FOLDER_MOUNTS, ['hostshare', 'hostshare-nfs', 'hostshare-9p']);
    assert.deepEqual(MOUNT_KINDS['hostshare-nfs'].targets, ['local']);
    assert.deepEqual([...sharesOf(['layer', 'hostshare-nfs'])], ['nfs']);
    assert.equal(sharesOf(['layer', 'volume', 'bind']).size, 0, 'no share, no server');
  });

  it('the config serves NFSv4.1+ over TCP on loopback only, to privileged ports, without grace, and quotes its paths', () => {
    const conf = ganeshaConfig('/state/labs/x/vms/a', 40123);
    assert.match(conf, /Minor_Versions = 1, 2;/, '4.0 callbacks would go to an address the client names');
    assert.match(conf, /PrivilegedPort = true;/, 'an unprivileged user of this machine cannot act as the guest');
    assert.match(conf, /NFS_Port = 40123;/);
    assert.match(conf, /Bind_addr = 127\.0\.0\.1;/);
    assert.match(conf, /Protocols = 4;[\s\S]*Enable_NLM = false;[\s\S]*Enable_UDP = false;/);
    assert.match(
      conf,
      /Graceless = true;/,
      'a new server has nothing to recover; a grace period would stall the first trial',
    );
    assert.match(conf, /Path = "\/state\/labs\/x\/vms\/a\/nfs-share";/);
    assert.match(conf, new RegExp(`Pseudo = ${NFS_EXPORT};`));
    assert.throws(() => ganeshaConfig('/tmp/a"b', 1), /quote or newline/, 'a quote would end the string early');
  });

  it("the guest's root, and every other uid of the guest, acts as nobody here, not as root (issue 35 N11)", () => {
    const conf = ganeshaConfig('/state/labs/x/vms/a', 40123);
    assert.equal(NFS_ANON_ID, 65534, 'nobody/nogroup');
    assert.match(conf, /^\s*Squash = All_Squash;$/m, 'every request is squashed');
    assert.match(conf, /^\s*Anonymous_Uid = 65534;$/m, 'to uid 65534');
    assert.match(conf, /^\s*Anonymous_Gid = 65534;$/m, 'and gid 65534');
    assert.doesNotMatch(conf, /No_Root_Squash|NoIdSquash|Squash = None/i, 'no export lets root through');
    assert.equal((conf.match(/^\s*Squash = /gm) ?? []).length, 1, 'one Squash setting, one export');
    assert.equal((conf.match(/^EXPORT \{/gm) ?? []).length, 1, 'only the VM folder is exported');
  });

  it('the VM reaches the server through one guestfwd rule on its restricted NIC', () => {
    assert.equal(
      nfsGuestfwd('/usr/bin/socat', 40123),
      `guestfwd=tcp:${NFS_GUEST_ADDRESS}:2049-cmd:/usr/bin/socat STDIO TCP4:127.0.0.1:40123,,lowport`,
      'a privileged source port (the export asks for one); the comma doubled inside -nic',
    );
    assert.throws(() => nfsGuestfwd('/usr/bin/socat;reboot', 1), /not a plain path/, 'QEMU runs it through /bin/sh');
    const args = qemuArgs({ ...vm, nfs: { socat: '/usr/bin/socat', port: 40123 } });
    const nic = args[args.indexOf('-nic') + 1] ?? '';
    assert.match(
      nic,
      /^user,model=virtio-net-pci,restrict=on,hostfwd=tcp:127\.0\.0\.1:2222-:22,guestfwd=tcp:10\.0\.2\.100:2049-cmd:/,
    );
    assert.equal(args.filter((a) => a === '-nic').length, 1, 'one NIC');
  });

  const tools = findNfsTools();
  const root = process.getuid?.() === 0;
  it(
    'a real nfs-ganesha starts on 127.0.0.1, is recognised by its recorded pid, and stops',
    {
      skip: !tools ? 'nfs-ganesha or socat not installed (npm test installs them)' : !root ? 'needs root' : false,
    },
    async () => {
      const dir = join(work, 'vm-a');
      const log = new HostLog(join(work, 'a.log'));
      await mountExport(dir, 1, log);
      let pid = 0;
      let port = 0;
      try {
        assert.ok(isMountPoint(nfsFiles(dir).folder), 'the export is a file system of its own');
        const top = statSync(nfsFiles(dir).folder);
        assert.deepEqual(
          [top.uid, top.gid, (top.mode & 0o7777).toString(8)],
          [NFS_ANON_ID, NFS_ANON_ID, '755'],
          "its root is nobody's, whom the guest's requests act as: the guest can make its folders there",
        );
        assert.ok(tools, 'the test is skipped without them');
        ({ pid, port } = await startNfsServer(dir, tools.ganesha));
        assert.ok(listensOn(pid, port), 'the server itself listens on the port it was given');
        assert.ok(!listensOn(process.pid, port), 'and no other process does');
        assert.ok(isOurNfsServer(dir, pid), 'the recorded pid is the server started for this VM');
        assert.ok(!isOurNfsServer(join(work, 'vm-b'), pid), 'and not the server of another VM');
        const listening = readFileSync('/proc/net/tcp6', 'utf8') + readFileSync('/proc/net/tcp', 'utf8');
        const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
        const sockets = listening.split('\n').filter((l) => l.includes(`:${hexPort} `) && / 0A /.test(l));
        assert.ok(sockets.length > 0, `a listening socket on port ${port}`);
        for (const line of sockets) {
          const local = line.trim().split(/\s+/)[1] ?? '';
          assert.match(
            local,
            /^(0100007F|0000000000000000FFFF00000100007F):/,
            `listens on 127.0.0.1 only, not ${local}`,
          );
        }
      } finally {
        if (pid) await stopNfsServer(dir, pid);
        await unmountExport(dir);
        await log.close();
      }
      assert.ok(!isMountPoint(nfsFiles(dir).folder), 'unmounted');
      assert.ok(!existsSync(nfsFiles(dir).image), 'its image removed');
      // Not isAlive: the test process spawned it, so it stays a zombie until node reaps it.
      assert.ok(!isOurNfsServer(dir, pid), 'stopped by its pid');
      assert.ok(await closedSoon(port), `nothing listens on 127.0.0.1:${port} any more`);
      assert.match(readFileSync(nfsFiles(dir).config, 'utf8'), new RegExp(`NFS_Port = ${port};`));
    },
  );
});

describe('the guest and the controller agree', () => {
  const lib = readFileSync('guest/lib.sh', 'utf8');
  const value = (name: string) => new RegExp(`^${name}=(\\S+)$`, 'm').exec(lib)?.[1];

  it("on the NFS server's address and export, and on each share's tag", () => {
    assert.equal(value('LL_NFS_SOURCE'), `${NFS_GUEST_ADDRESS}:${NFS_EXPORT}`);
    assert.match(lib, new RegExp(`mount -t virtiofs ${SHARE_TAG} `), 'virtiofs tag');
    assert.match(lib, new RegExp(`cache=mmap ${NINEP_TAG} `), '9p tag');
  });

  it('on which mount kinds are shared folders', () => {
    const arms = [...lib.matchAll(/^\s*(hostshare[^)]*)\)/gm)].map((m) => (m[1] ?? '').split(/\s*\|\s*/));
    const listed = arms.filter((a) => a.length > 1);
    assert.ok(listed.length >= 2, 'll_mount_setup and ll_mount_cleanup each list them');
    for (const kinds of listed) assert.deepEqual(kinds, SHARED_FOLDER_MOUNTS);
  });
});
