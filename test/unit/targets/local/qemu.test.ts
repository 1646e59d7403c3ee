/**
 * QEMU's command line for a lab's VM: booting and restoring from a template
 * differ only in -incoming; the disks' I/O mode (target.local.diskAio)
 * reaches both of its drives, always with cache=none.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLabDefinition } from '../../../../lab/definition/load.ts';
import { type DiskAio, type VmSpec, qemuArgs } from '../../../../lab/targets/local/qemu.ts';

const vm: VmSpec = {
  name: 'l-a',
  dir: '/state/a',
  image: {
    key: 'k',
    release: 'debian-12',
    dir: '/i',
    base: '/i/base.raw',
    kernel: '/i/vmlinuz',
    initrd: '/i/initrd.img',
  },
  cpus: 2,
  memoryMiB: 1024,
  port: 2222,
  accel: 'tcg',
  tcgCacheMiB: 256,
  diskAio: 'native',
};

/** The `-drive` values of a command line, by drive id. */
function drives(args: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  args.forEach((a, i) => {
    if (a !== '-drive') return;
    const value = args[i + 1] ?? '';
    out[/(?:^|,)id=([^,]+)/.exec(value)?.[1] ?? '?'] = value;
  });
  return out;
}

const lab = (extra = '') =>
  parseLabDefinition(
    `name: k\nhosts: [{ name: a, profile: overlay2-xfs }]\nscenarios: { fio: {} }\nmounts: [layer]\nrepetitions: 1\n${extra}`,
    'labs/k.yaml',
  );

describe('qemuArgs: the disks’ aio mode', () => {
  for (const mode of ['native', 'threads', 'io_uring'] as const) {
    it(`aio=${mode}: the root and data drives use it, with cache=none; the seed disk neither`, () => {
      const d = drives(qemuArgs({ ...vm, diskAio: mode }));
      for (const id of ['root', 'data']) {
        assert.match(d[id] ?? '', new RegExp(`,cache=none,aio=${mode}(,|$)`), `drive ${id}: ${d[id]}`);
        assert.equal(d[id]?.match(/aio=/g)?.length, 1, `drive ${id} names one aio mode: ${d[id]}`);
      }
      assert.doesNotMatch(d.seed ?? '', /aio=|cache=/, 'the read-only seed disk keeps QEMU’s defaults');
    });
  }

  it('the lab file’s target.local.diskAio is what a VM gets: native unless set', () => {
    const args = (extra?: string) => {
      const diskAio: DiskAio = lab(extra).target.local.diskAio;
      return drives(qemuArgs({ ...vm, diskAio })).data ?? '';
    };
    assert.match(args(), /aio=native/);
    assert.match(args('target: { local: { diskAio: threads } }\n'), /aio=threads/);
    assert.match(args('target: { local: { diskAio: io_uring } }\n'), /aio=io_uring/);
  });

  it('nothing else on the command line changes with the mode', () => {
    const native = qemuArgs(vm);
    const threads = qemuArgs({ ...vm, diskAio: 'threads' });
    assert.equal(threads.length, native.length);
    const differ = native.flatMap((a, i) => (a === threads[i] ? [] : [a.replace(/.*,id=(\w+),.*/, '$1')]));
    assert.deepEqual(differ, ['root', 'data'], 'only the two drives differ');
  });
});

describe('qemuArgs: booting and restoring', () => {
  it('a restoring VM has a QMP socket and -incoming; a booting one no -incoming', () => {
    const booting = qemuArgs({ ...vm, tcgCacheMiB: 1024 });
    assert.equal(booting[booting.indexOf('-accel') + 1], 'tcg,thread=multi,tb-size=1024', "the lab's TCG cache size");
    assert.ok(!booting.includes('-incoming'), 'a cold boot loads nothing');
    assert.ok(booting.includes('unix:/state/a/qmp.sock,server=on,wait=off'), 'QMP socket in the VM folder');
    const restoring = qemuArgs({ ...vm, tcgCacheMiB: 1024, incoming: 'exec:zstd -q -dc -- /t/memory.zst' });
    assert.equal(restoring[restoring.indexOf('-incoming') + 1], 'exec:zstd -q -dc -- /t/memory.zst');
    // The machine itself must be the same for the saved state to load.
    assert.deepEqual(
      restoring.filter((a) => a !== '-incoming' && !a.startsWith('exec:')),
      booting,
    );
  });
});
