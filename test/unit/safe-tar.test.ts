import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { extractSafely, unsafeMemberReason } from '../../lab/ssh/safe-tar.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-tar-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** Builds an archive with GNU tar; -P keeps absolute and ".." member names as given. */
function archive(name: string, cwd: string, members: string[], absolute = false): string {
  const path = join(work, name);
  execFileSync('tar', ['-cf', path, ...(absolute ? ['-P'] : []), '-C', cwd, ...members]);
  return path;
}

describe('safe tar extraction', () => {
  const src = join(work, 'src');
  mkdirSync(join(src, 'sub'), { recursive: true });
  writeFileSync(join(src, 'sub', 'ok.txt'), 'fine');

  it('unpacks plain files and directories', async () => {
    const dest = join(work, 'out-ok');
    const files = await extractSafely(createReadStream(archive('ok.tar', src, ['.'])), dest);
    assert.deepEqual(files, ['sub/ok.txt']);
    assert.ok(existsSync(join(dest, 'sub', 'ok.txt')), "existsSync(join(dest, 'sub', 'ok.txt'))");
  });

  it('refuses ".." members', async () => {
    const dest = join(work, 'deep', 'out-dotdot');
    mkdirSync(dest, { recursive: true });
    const tarPath = archive('dotdot.tar', dest, ['../../src/sub/ok.txt'], true);
    await assert.rejects(
      extractSafely(createReadStream(tarPath), dest),
      /refused unsafe archive members: path with "\.\."/,
    );
  });

  it('refuses absolute members', async () => {
    const tarPath = archive('abs.tar', '/', [join(src, 'sub', 'ok.txt')], true);
    await assert.rejects(extractSafely(createReadStream(tarPath), join(work, 'out-abs')), /absolute path/);
  });

  it('refuses symlinks', async () => {
    const linkDir = join(work, 'links');
    mkdirSync(linkDir);
    symlinkSync('/etc/passwd', join(linkDir, 'passwd'));
    const tarPath = archive('link.tar', linkDir, ['passwd']);
    await assert.rejects(extractSafely(createReadStream(tarPath), join(work, 'out-link')), /SymbolicLink entry/);
    assert.ok(!existsSync(join(work, 'out-link', 'passwd')), "!existsSync(join(work, 'out-link', 'passwd'))");
  });

  it('classifies member names', () => {
    assert.equal(unsafeMemberReason('a/b.txt', 'File'), undefined);
    assert.match(unsafeMemberReason('a/../../b', 'File') ?? '', /\.\./);
    assert.match(unsafeMemberReason('/etc/x', 'File') ?? '', /absolute/);
    assert.match(unsafeMemberReason('x', 'Link') ?? '', /Link entry/);
  });
});
