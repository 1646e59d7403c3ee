/** bench/clean-clone.ts: a clean clone holds only what the commit tracks; an image cache must start empty. */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cleanClone, emptyCacheEnv, git } from '../../../bench/clean-clone.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-bench-clean-clone-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** A repository with two commits, an ignored node_modules, state and an uncommitted change, as a checkout has. */
function checkout(): { dir: string; first: string } {
  const dir = join(work, 'checkout');
  mkdirSync(dir);
  const commit = (message: string) =>
    git('-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '--quiet', '-am', message);
  git('init', '--quiet', dir);
  writeFileSync(join(dir, '.gitignore'), 'node_modules\n.layerlab\n');
  writeFileSync(join(dir, 'a.txt'), 'first\n');
  git('-C', dir, 'add', '.gitignore', 'a.txt');
  commit('first');
  const first = git('-C', dir, 'rev-parse', '--short', 'HEAD');
  writeFileSync(join(dir, 'a.txt'), 'second\n');
  commit('second');
  writeFileSync(join(dir, 'a.txt'), 'uncommitted\n');
  mkdirSync(join(dir, 'node_modules'));
  mkdirSync(join(dir, '.layerlab'));
  return { dir, first };
}

describe('cleanClone', () => {
  const { dir, first } = checkout();

  it('HEAD: the committed files only — no uncommitted change, no node_modules, no state', () => {
    const clone = join(work, 'head');
    const rev = cleanClone(clone, 'HEAD', dir);
    assert.equal(rev, git('-C', dir, 'rev-parse', '--short', 'HEAD'));
    assert.equal(readFileSync(join(clone, 'a.txt'), 'utf8'), 'second\n');
    assert.ok(!existsSync(join(clone, 'node_modules')), 'no node_modules: npm ci installs them');
    assert.ok(!existsSync(join(clone, '.layerlab')), 'no lab state');
  });

  it('another commit, by its id', () => {
    const clone = join(work, 'first');
    assert.equal(cleanClone(clone, first, dir), first);
    assert.equal(readFileSync(join(clone, 'a.txt'), 'utf8'), 'first\n');
  });

  it('a commit that does not exist names the git command that failed', () => {
    assert.throws(() => cleanClone(join(work, 'none'), 'no-such-rev', dir), /git -C .* rev-parse --short no-such-rev/);
  });
});

describe('emptyCacheEnv', () => {
  it('LAYERLAB_CACHE is <work>/cache, while it does not exist or is empty', () => {
    const home = join(work, 'fresh');
    assert.deepEqual(emptyCacheEnv(home), { LAYERLAB_CACHE: join(home, 'cache') });
    mkdirSync(join(home, 'cache'), { recursive: true });
    assert.deepEqual(emptyCacheEnv(home), { LAYERLAB_CACHE: join(home, 'cache') });
  });

  it('a cache with anything in it is refused: it would time a warm start as a fresh one', () => {
    const home = join(work, 'used');
    mkdirSync(join(home, 'cache', 'images'), { recursive: true });
    assert.throws(() => emptyCacheEnv(home), /cache is not empty: a fresh start needs an empty image cache/);
  });
});
