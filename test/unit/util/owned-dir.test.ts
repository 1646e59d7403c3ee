/**
 * Issue 35 N6: a guest can nest folders inside a shared folder deeper than
 * PATH_MAX; deleting the lab's state then failed with ENAMETOOLONG and left
 * the lab half torn down. The tree is made with relative mkdirs, as a guest
 * would, 300 levels of 20 characters (over 6,000 characters of path).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { removeOwnedChild } from '../../../lab/util/owned-dir.ts';

const base = mkdtempSync(join(tmpdir(), 'layerlab-owned-dir-'));
after(() => execFileSync('rm', ['-rf', '--one-file-system', '--', base]));

function deepTree(root: string, levels: number): void {
  mkdirSync(root);
  execFileSync('bash', [
    '-c',
    'set -euo pipefail; cd "$1"; for _ in $(seq "$2"); do mkdir aaaaaaaaaaaaaaaaaaaa; cd aaaaaaaaaaaaaaaaaaaa; done; echo x > f',
    '_',
    root,
    String(levels),
  ]);
}

describe('removeOwnedChild', () => {
  it('deletes a tree deeper than PATH_MAX', async () => {
    const parent = join(base, 'labs');
    mkdirSync(parent);
    deepTree(join(parent, 'quick'), 300);
    await removeOwnedChild(parent, 'quick');
    assert.equal(existsSync(join(parent, 'quick')), false, 'the deep tree is gone');
  });

  it('still refuses a child that is a link, and names outside the parent', async () => {
    const parent = join(base, 'linked');
    mkdirSync(parent);
    const outside = join(base, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep'), 'x');
    symlinkSync(outside, join(parent, 'lab'));
    await assert.rejects(removeOwnedChild(parent, 'lab'), /symbolic link/);
    await assert.rejects(removeOwnedChild(parent, '../outside'), /not a plain folder name/);
    assert.equal(existsSync(join(outside, 'keep')), true, 'nothing outside the parent was deleted');
    rmSync(join(parent, 'lab'));
  });
});
