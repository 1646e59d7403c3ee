/**
 * Tool images built on a lab host (issue 15): the apt sources rule the
 * controller and a host's pulled copy share, the tag both compute, the
 * checks on what a host sends back, the host builder's own refusals, and
 * the exit-2 refusal of a lab nobody could build for.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseLabDefinition } from '../../../lab/definition/load.ts';
import { UserError } from '../../../lab/errors.ts';
import { checkToolImagesObtainable } from '../../../lab/phases/tool-images.ts';
import { checkReturnedImage } from '../../../lab/toolimages/host-build.ts';
import {
  ARCHIVE,
  cachedToolImage,
  controllerCannotBuild,
  latestCachedTag,
  toolCacheDir,
  toolImageTag,
} from '../../../lab/toolimages/toolimages.ts';
import { aptSourcesUnder } from '../../../lab/util/apt-sources.ts';
import { namedFile } from '../../../lab/util/hash.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-toolhost-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** `printf 'a tar would be here' | zstd -q -c`, kept as bytes: the unit tests do not need zstd installed. */
function zstdBytes(): Buffer {
  return Buffer.from('KLUv/QRYmQAAYSB0YXIgd291bGQgYmUgaGVyZcGmXU0=', 'base64');
}

function hostRoot(name: string, files: Record<string, string>): string {
  const root = join(work, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('apt sources and tags', () => {
  it("a host's sources are chosen by the controller's rule, named as the host names them", () => {
    const root = hostRoot('h1', {
      'etc/apt/sources.list': '# only a comment\n',
      'etc/apt/sources.list.d/z.sources': 'Types: deb\n',
      'etc/apt/sources.list.d/a.list': 'deb http://example.invalid/debian bookworm main\n',
      'etc/apt/sources.list.d/a.list.save': 'deb old\n',
    });
    assert.deepEqual(aptSourcesUnder(root), ['/etc/apt/sources.list.d/a.list', '/etc/apt/sources.list.d/z.sources']);
    writeFileSync(join(root, 'etc/apt/sources.list'), 'deb http://example.invalid/debian bookworm main\n');
    assert.equal(aptSourcesUnder(root)[0], '/etc/apt/sources.list', 'sources.list counts once it has a deb line');
  });

  it('the same sources read on the controller or pulled from a host give the same tag; other sources another', async () => {
    const root = hostRoot('h2', { 'etc/apt/sources.list.d/debian.sources': 'Types: deb\nSuites: bookworm\n' });
    const local = [await namedFile(join(root, 'etc/apt/sources.list.d/debian.sources'))];
    const pulled = [
      await namedFile('/etc/apt/sources.list.d/debian.sources', Buffer.from('Types: deb\nSuites: bookworm\n')),
    ];
    const other = [
      await namedFile('/etc/apt/sources.list.d/debian.sources', Buffer.from('Types: deb\nSuites: trixie\n')),
    ];
    assert.equal(await toolImageTag('fio', local), await toolImageTag('fio', pulled), 'same pieces, same tag');
    assert.notEqual(await toolImageTag('fio', local), await toolImageTag('fio', other), 'other sources, other tag');
    assert.match(await toolImageTag('fio', local), /^layerlab\/fio:[0-9a-f]{16}$/, 'tag shape');
  });
});

describe('what a host sends back', () => {
  const where = { host: 'a', phase: 'tool-image' };
  function returned(name: string, archive: Buffer, claimed?: string, extra?: string): string {
    const dir = join(work, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'image.tar.zst'), archive);
    writeFileSync(join(dir, 'image.sha256'), `${claimed ?? createHash('sha256').update(archive).digest('hex')}\n`);
    if (extra) writeFileSync(join(dir, extra), 'x');
    return dir;
  }
  const zst = zstdBytes();

  it('accepts exactly a zstd archive whose bytes hash to what the host said', async () => {
    assert.ok(zst.length > 4, 'zstd made an archive');
    await checkReturnedImage(returned('good', zst), where);
  });

  it('refuses an image.sha256 that is not a sha256 in hex', async () => {
    await assert.rejects(
      checkReturnedImage(returned('not-hex', zst, `${'z'.repeat(64)}\n\u001b[31m`), where),
      /image\.sha256 from the host is not a sha256 in hex/,
    );
  });

  it('refuses another file beside them, a non-zstd archive, and a wrong hash', async () => {
    await assert.rejects(
      checkReturnedImage(returned('extra', zst, undefined, 'evil.sh'), where),
      /sent back .*evil\.sh/,
    );
    await assert.rejects(checkReturnedImage(returned('plain', Buffer.from('plain tar')), where), /not zstd-compressed/);
    await assert.rejects(
      checkReturnedImage(returned('lied', zst, 'f'.repeat(64)), where),
      /hashes to [0-9a-f]{64}, the host said f+/,
    );
  });
});

describe('guest/build-tool-image.sh refuses before building', () => {
  const run = (...args: string[]) =>
    spawnSync('bash', ['guest/build-tool-image.sh', ...args], { encoding: 'utf8', env: { PATH: process.env.PATH } });

  it('a recipe name that is not [a-z0-9-], and apt sources outside /etc/apt', () => {
    const badName = run('../../etc/passwd', '/etc/apt/sources.list');
    assert.equal(badName.status, 1, badName.stderr);
    assert.match(badName.stderr, /tool image name '\.\.\/\.\.\/etc\/passwd' is not/);
    const badSources = run('fio', '/tmp/evil.list');
    assert.equal(badSources.status, 1, badSources.stderr);
    assert.match(badSources.stderr, /apt sources file \/tmp\/evil\.list is not under \/etc\/apt/);
  });
});

describe('a lab nobody could build tool images for', () => {
  const flatcarOnly = `name: fc
target: { kind: static }
hosts:
  - { name: f, profile: flatcar }
scenarios:
  fio: { size: 8M, runtime: 1 }
mounts: [layer]
repetitions: 1
`;
  it('is refused with exit 2 (UserError) naming the fix, when the controller cannot build and the cache is empty', async () => {
    const saved = { path: process.env.PATH, cache: process.env.LAYERLAB_CACHE };
    process.env.PATH = '/nonexistent';
    process.env.LAYERLAB_CACHE = join(work, 'empty-cache');
    try {
      assert.ok(controllerCannotBuild(), 'without mmdebstrap on PATH the controller cannot build');
      const lab = parseLabDefinition(flatcarOnly, 'labs/fc.yaml');
      await assert.rejects(checkToolImagesObtainable(lab), (err: Error) => {
        assert.ok(err instanceof UserError, 'a UserError (exit 2)');
        assert.match(err.message, /tool image\(s\) fio cannot be built for lab fc: .*no Debian 12 host.*Fix: /);
        return true;
      });
      const withDebian = parseLabDefinition(
        flatcarOnly.replace('hosts:\n', 'hosts:\n  - { name: d, profile: overlay2-ext4 }\n'),
        'labs/fc.yaml',
      );
      await checkToolImagesObtainable(withDebian);
      const withTrixie = parseLabDefinition(
        flatcarOnly.replace('hosts:\n', 'hosts:\n  - { name: d, profile: overlay2-ext4, os: debian-13 }\n'),
        'labs/fc.yaml',
      );
      await assert.rejects(
        checkToolImagesObtainable(withTrixie),
        /no Debian 12 host/,
        'a Debian 13 host builds no tool image',
      );
    } finally {
      process.env.PATH = saved.path;
      if (saved.cache === undefined) Reflect.deleteProperty(process.env, 'LAYERLAB_CACHE');
      else process.env.LAYERLAB_CACHE = saved.cache;
    }
  });
});

describe('which image a controller that cannot build runs', () => {
  it("is per lab: another lab's prepare does not change this lab's tag", async () => {
    const saved = process.env.LAYERLAB_CACHE;
    process.env.LAYERLAB_CACHE = join(work, 'pointer-cache');
    try {
      for (const tag of ['layerlab/fio:aaaa', 'layerlab/fio:bbbb']) {
        mkdirSync(toolCacheDir(tag), { recursive: true });
        writeFileSync(join(toolCacheDir(tag), ARCHIVE), zstdBytes());
      }
      await cachedToolImage('fio', 'layerlab/fio:aaaa', 'lab-a');
      await cachedToolImage('fio', 'layerlab/fio:bbbb', 'lab-b');
      assert.equal(
        await latestCachedTag('fio', 'lab-a'),
        'layerlab/fio:aaaa',
        'lab-a keeps the image its prepare loaded',
      );
      assert.equal(await latestCachedTag('fio', 'lab-b'), 'layerlab/fio:bbbb', 'lab-b has its own');
      assert.equal(await latestCachedTag('fio'), 'layerlab/fio:bbbb', 'the cache-wide latest is the last one received');
      assert.equal(await latestCachedTag('fio', 'lab-c'), undefined, 'a lab never prepared here has none');
    } finally {
      if (saved === undefined) Reflect.deleteProperty(process.env, 'LAYERLAB_CACHE');
      else process.env.LAYERLAB_CACHE = saved;
    }
  });
});
