/**
 * `layerlab sweep --local` and the tool image cache: an archive no recipe of
 * this checkout makes any more goes, unless a lab's pointer names it, a
 * build of it is under way, or it was used recently. A `<name>.latest` file
 * (a pointer shared by all labs, which older versions wrote) keeps nothing
 * (issue 35 N3). Real files and the real CLI, in a cache and state folder of
 * the test's own.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';

const BIN = resolve(import.meta.dirname, '..', '..', '..', 'bin', 'layerlab.js');
const work = mkdtempSync(join(tmpdir(), 'layerlab-tool-sweep-'));
const cache = join(work, 'cache');
const tools = join(cache, 'tools');
const env = { ...process.env, LAYERLAB_CACHE: cache, LAYERLAB_HOME: join(work, 'state') };
after(() => rmSync(work, { recursive: true, force: true }));

const DAY = 86_400;
const ago = (days: number) => Date.now() / 1000 - days * DAY;

/** A tool image folder: its archive (or none: a build that never finished), last used `daysAgo` days ago. */
function toolImage(name: string, daysAgo: number, finished = true): string {
  const dir = join(tools, name);
  mkdirSync(dir, { recursive: true });
  if (finished) {
    writeFileSync(join(dir, 'image.tar.zst'), 'z'.repeat(2048));
    utimesSync(join(dir, 'image.tar.zst'), ago(daysAgo), ago(daysAgo));
  } else {
    writeFileSync(join(dir, 'image.tar'), 'partial');
  }
  utimesSync(dir, ago(daysAgo), ago(daysAgo));
  return dir;
}

const sweep = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, 'sweep', '--local', ...args], { encoding: 'utf8', env });

describe('sweep: tool images', () => {
  let current = '';
  const old = join(tools, 'layerlab-fio-0000000000000000');
  const recent = join(tools, 'layerlab-fio-1111111111111111');
  const namedByLatest = join(tools, 'layerlab-fio-2222222222222222');
  const pointedByLab = join(tools, 'layerlab-dbench-3333333333333333');
  const building = join(tools, 'layerlab-large-4444444444444444');
  const unfinished = join(tools, 'layerlab-large-5555555555555555');
  const notOurs = join(tools, 'notes');

  before(async () => {
    process.env.LAYERLAB_CACHE = cache;
    const { controllerSources, toolCacheDir, toolImageTag } = await import('../../../lab/toolimages/toolimages.ts');
    current = toolCacheDir(await toolImageTag('fio', await controllerSources()));
    toolImage(basename(current), 60);
    toolImage(basename(old), 10);
    toolImage(basename(recent), 1);
    toolImage(basename(namedByLatest), 10);
    toolImage(basename(pointedByLab), 10);
    toolImage(basename(building), 10, false);
    toolImage(basename(unfinished), 10, false);
    mkdirSync(notOurs);
    // What a controller that cannot build loads next for a lab: an image that lab's host built.
    // A shared `.latest` pointer is no longer read: the image it names is judged like any other.
    writeFileSync(join(tools, 'fio.latest'), 'layerlab/fio:2222222222222222\n');
    mkdirSync(join(tools, 'latest', 'nightly'), { recursive: true });
    writeFileSync(join(tools, 'latest', 'nightly', 'dbench'), 'layerlab/dbench:3333333333333333\n');
    // A build under way holds its lock with its pid: this test's own process is alive.
    writeFileSync(`${building}.lock`, String(process.pid));
  });

  it('--dry-run names the old archive and the unfinished build, with size and why, and removes nothing', () => {
    const r = sweep('--dry-run');
    const out = r.stdout + r.stderr;
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      out,
      /would remove tool image layerlab-fio-0000000000000000 \(2\.0 KiB\): not the current image of its recipe .*unused for 10 days/,
    );
    assert.match(out, /would remove tool image layerlab-large-5555555555555555 .*: a build that never finished/);
    assert.match(out, /would remove tool image layerlab-fio-2222222222222222 /, 'a .latest file keeps nothing');
    for (const kept of [current, recent, pointedByLab, building])
      assert.doesNotMatch(out, new RegExp(`tool image ${basename(kept)}`), `${basename(kept)} is not listed`);
    assert.ok(existsSync(old) && existsSync(unfinished), 'a dry run removes nothing');
  });

  it("removes them; the current, a recent, a lab's and a building one stay, and what is not a tool image", () => {
    const r = sweep();
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout + r.stderr, /removed tool image layerlab-fio-0000000000000000/);
    assert.equal(existsSync(old), false, 'the old archive is gone');
    assert.equal(existsSync(unfinished), false, 'the unfinished build is gone');
    assert.equal(existsSync(namedByLatest), false, 'the image only a .latest file named is gone');
    for (const kept of [current, recent, pointedByLab, building, notOurs])
      assert.ok(existsSync(kept), `${basename(kept)} kept`);
    assert.ok(existsSync(join(tools, 'latest', 'nightly', 'dbench')), "the labs' pointers stay");
  });

  it('without apt sources the current tags cannot be computed: nothing is judged, and it says why', () => {
    const stale = toolImage('layerlab-fio-6666666666666666', 30);
    const r = spawnSync(process.execPath, [BIN, 'sweep', '--local'], {
      encoding: 'utf8',
      env: { ...env, LAYERLAB_APT_SOURCES: ':' },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout + r.stderr, /tool images: not checked \(this machine has no apt sources/);
    assert.ok(existsSync(stale), 'kept when nothing can be judged');
  });
});
