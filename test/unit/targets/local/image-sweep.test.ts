/**
 * `layerlab sweep --local` and the guest image cache: an image no release and
 * kernel of this checkout boots any more goes, unless a process has it open,
 * a lab records its key, or it was used recently. Real files and a real
 * process holding one open, in a cache and state folder of the test's own.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';

const BIN = resolve(import.meta.dirname, '..', '..', '..', '..', 'bin', 'layerlab.js');
const work = mkdtempSync(join(tmpdir(), 'layerlab-image-sweep-'));
const cache = join(work, 'cache');
const home = join(work, 'state');
const env = { ...process.env, LAYERLAB_CACHE: cache, LAYERLAB_HOME: home };
let holder: ChildProcess | undefined;
let vm: ChildProcess | undefined;
after(() => {
  holder?.kill('SIGKILL');
  vm?.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

const DAY = 86_400;
/** A finished image folder, its base.raw last used `daysAgo` days ago. */
function image(name: string, daysAgo: number): string {
  const dir = join(cache, 'images', name);
  mkdirSync(dir, { recursive: true });
  const base = join(dir, 'base.raw');
  writeFileSync(base, 'x'.repeat(4096));
  writeFileSync(join(dir, 'vmlinuz'), 'k');
  age(dir, daysAgo);
  return dir;
}

/** base.raw last read and written `daysAgo` days ago. */
function age(dir: string, daysAgo: number): void {
  const t = Date.now() / 1000 - daysAgo * DAY;
  utimesSync(join(dir, 'base.raw'), t, t);
}

const sweep = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, 'sweep', '--local', ...args], { encoding: 'utf8', env });

describe('sweep: guest images', () => {
  let current = '';
  const old = join(cache, 'images', 'guest-debian-12-0000000000000000');
  const recent = join(cache, 'images', 'guest-debian-13-generic-1111111111111111');
  const open = join(cache, 'images', 'guest-debian-12-2222222222222222');
  const ofLab = join(cache, 'images', 'guest-debian-12-3333333333333333');

  before(async () => {
    process.env.LAYERLAB_CACHE = cache;
    const { guestImageDir, guestImageKey } = await import('../../../../lab/targets/local/image.ts');
    current = guestImageDir('debian-12', 'cloud', await guestImageKey('debian-12', 'cloud'));
    image(basename(current), 60);
    image(basename(old), 10);
    image(basename(recent), 1);
    image(basename(open), 10);
    image(basename(ofLab), 10);
    // A VM booted from it: its disk holds base.raw open (here a tail, by its own pid).
    holder = spawn('tail', ['-f', join(open, 'base.raw')], { stdio: 'ignore' });
    // A lab that is up (its "VM" a process naming its host folder), booted from 3333….
    const hostDir = join(home, 'labs', 'kept', 'hosts', 'a');
    mkdirSync(hostDir, { recursive: true });
    writeFileSync(join(hostDir, 'serial.log'), '');
    vm = spawn('tail', ['-f', join(hostDir, 'serial.log')], { stdio: 'ignore' });
    const host = { name: 'a', profile: 'overlay2-xfs', dir: hostDir, pid: vm.pid, imageKey: '3333333333333333' };
    writeFileSync(join(home, 'labs', 'kept', 'state.json'), JSON.stringify({ lab: 'kept', hosts: { a: host } }));
    // Let tail open the file before anyone looks.
    for (let i = 0; i < 50 && !existsSync(`/proc/${holder.pid}/fd/3`); i++)
      await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 300));
    // tail's first read made it "used now": only the open file keeps it in the next test.
    age(open, 10);
  });

  it('--dry-run names only the stale image, with its size and why, and removes nothing', () => {
    const r = sweep('--dry-run');
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout + r.stderr,
      /would remove guest image guest-debian-12-0000000000000000 \(\d\.\d KiB\): not the current image of any release and kernel .*unused for 10 days/,
    );
    assert.doesNotMatch(
      r.stdout + r.stderr,
      /guest image guest-debian-12-(2|3)|guest-debian-13-generic|would remove guest image guest-debian-12-[0-9a-f]{16} .*60 days/,
    );
    assert.ok(existsSync(old), 'a dry run removes nothing');
  });

  it('removes it; the current image, a recently used one, one held open and one a lab records stay', () => {
    const r = sweep();
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout + r.stderr, /removed guest image guest-debian-12-0000000000000000/);
    assert.equal(existsSync(old), false);
    for (const kept of [current, recent, open, ofLab]) assert.ok(existsSync(kept), `${basename(kept)} kept`);
  });

  it('once nothing holds it, an image held open goes too', () => {
    holder?.kill('SIGKILL');
    spawnSync('sleep', ['0.2']);
    // Reading it counted as use (atime); this VM was last used long ago.
    age(open, 10);
    const r = sweep();
    assert.match(r.stdout + r.stderr, /removed guest image guest-debian-12-2222222222222222/);
    assert.ok(existsSync(ofLab) && existsSync(current), 'the image of a lab that is up and the current image stay');
  });
});
