/**
 * Tool images built on a lab host (issue 15): the apt sources rule the
 * controller and a host's pulled copy share, the tags, the checks on what a
 * host sends back, the host builder's own refusals, and the exit-2 refusal
 * of a lab nobody could build for. Issue 35 N3: what a host reports does
 * not choose the cache entry, an archive changed in the cache is refused,
 * and no pointer shared by all labs is written or read.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseLabDefinition } from '../../../lab/definition/load.ts';
import { UserError } from '../../../lab/errors.ts';
import { checkToolImagesObtainable } from '../../../lab/phases/tool-images.ts';
import type { SshConnection } from '../../../lab/ssh/transport.ts';
import { buildOnHost, checkReturnedImage } from '../../../lab/toolimages/host-build.ts';
import {
  ARCHIVE,
  DIGEST,
  cachedToolImage,
  controllerCannotBuild,
  controllerSources,
  hostBuiltTag,
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

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Runs `body` with LAYERLAB_CACHE set to a folder of its own, then puts the variable back. */
async function withCache(name: string, body: () => Promise<void>): Promise<void> {
  const saved = process.env.LAYERLAB_CACHE;
  process.env.LAYERLAB_CACHE = join(work, name);
  try {
    await body();
  } finally {
    if (saved === undefined) Reflect.deleteProperty(process.env, 'LAYERLAB_CACHE');
    else process.env.LAYERLAB_CACHE = saved;
  }
}

/** A stored cache entry: the archive and the digest the controller records with it. */
function storeImage(tag: string, bytes: Buffer): void {
  mkdirSync(toolCacheDir(tag), { recursive: true });
  writeFileSync(join(toolCacheDir(tag), ARCHIVE), bytes);
  writeFileSync(join(toolCacheDir(tag), DIGEST), `${sha256(bytes)}\n`);
}

/** A lab host whose build sends back `archive` (and its true sha256); `builds` counts the builds asked of it. */
function fakeBuilder(name: string, hostKey: string, archive: Buffer) {
  const builds: string[] = [];
  const conn = {
    endpoint: { name, address: '127.0.0.1', port: 2222, user: 'root', privateKey: '', hostKey },
    async pullCommand(command: string, dir: string) {
      builds.push(command);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, ARCHIVE), archive);
      writeFileSync(join(dir, DIGEST), `${sha256(archive)}\n`);
      return [ARCHIVE, DIGEST];
    },
  } as unknown as SshConnection;
  return { conn, builds };
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

  it("a host build's tag is who built it as the controller knows them: lab, host, pinned key", async () => {
    const builder = { lab: 'lab-a', host: 'deb', hostKey: 'ssh-ed25519 AAAAkeyA' };
    const tag = await hostBuiltTag('fio', builder);
    assert.match(tag, /^layerlab\/fio:[0-9a-f]{16}$/, 'tag shape');
    assert.equal(await hostBuiltTag('fio', { ...builder }), tag, 'the same builder, the same tag');
    for (const other of [{ lab: 'lab-b' }, { host: 'deb2' }, { hostKey: 'ssh-ed25519 AAAAkeyB' }])
      assert.notEqual(await hostBuiltTag('fio', { ...builder, ...other }), tag, `${Object.keys(other)[0]} counts`);
    assert.notEqual(
      await hostBuiltTag('fio', { lab: 'lab-ad', host: 'eb', hostKey: builder.hostKey }),
      tag,
      'the parts cannot be shifted into each other',
    );
    assert.notEqual(tag, await toolImageTag('fio', await controllerSources()), "never the controller's own build");
  });
});

describe("what a lab host's build can reach in the cache (issue 35 N3)", () => {
  const imageA = zstdBytes();
  const imageB = Buffer.concat([zstdBytes(), Buffer.from('another build')]);
  // What the hosts report: the very same apt sources (paths and bytes) as the controller would read.
  const reported = {
    paths: ['/etc/apt/sources.list.d/debian.sources'],
    pieces: [{ name: 'sources.list.d/debian.sources', data: Buffer.from('Types: deb\nSuites: bookworm\n') }],
  };

  it("a host reporting another lab's host's sources gets an entry of its own, not that lab's image", async () => {
    await withCache('host-identity', async () => {
      const a = fakeBuilder('deb', 'ssh-ed25519 AAAAkeyA', imageA);
      const fromA = await buildOnHost(a.conn, 'fio', reported, true, 'lab-a');
      assert.equal(a.builds.length, 1, "lab-a's host built it");
      assert.equal(fromA.sha256, sha256(imageA), "lab-a's image is its host's bytes");

      const b = fakeBuilder('deb', 'ssh-ed25519 AAAAkeyB', imageB);
      const fromB = await buildOnHost(b.conn, 'fio', reported, true, 'lab-b');
      assert.equal(b.builds.length, 1, "lab-b's host built its own: lab-a's image was not served to it");
      assert.equal(fromB.sha256, sha256(imageB), "lab-b runs its own host's bytes");
      assert.notEqual(fromB.tag, fromA.tag, 'two cache entries');

      const impostor = fakeBuilder('deb', 'ssh-ed25519 AAAAkeyC', imageB);
      const fromImpostor = await buildOnHost(impostor.conn, 'fio', reported, true, 'lab-a');
      assert.equal(impostor.builds.length, 1, 'the same lab and host name with another host key is another builder');
      assert.notEqual(fromImpostor.tag, fromA.tag, "lab-a's entry is untouched");

      const again = fakeBuilder('deb', 'ssh-ed25519 AAAAkeyA', imageB);
      const reused = await buildOnHost(again.conn, 'fio', reported, true, 'lab-a');
      assert.equal(again.builds.length, 0, "the same lab's same host is served from the cache");
      assert.equal(reused.sha256, sha256(imageA), 'with the bytes stored the first time');
      assert.equal(await latestCachedTag('fio', 'lab-a'), fromA.tag, "lab-a's pointer names its own host's image");
    });
  });

  it('an archive changed in the cache after it was stored is refused, naming the file and both digests', async () => {
    await withCache('tampered', async () => {
      const a = fakeBuilder('deb', 'ssh-ed25519 AAAAkeyA', imageA);
      const stored = await buildOnHost(a.conn, 'fio', reported, true, 'lab-a');
      appendFileSync(stored.archive, 'tampered');
      const changed = sha256(Buffer.concat([imageA, Buffer.from('tampered')]));
      const refusal = (err: Error) => {
        assert.ok(err.message.includes(stored.archive), `names the archive: ${err.message}`);
        assert.ok(err.message.includes(`hashes to ${changed}`), `gives the actual digest: ${err.message}`);
        assert.ok(err.message.includes(stored.sha256), `gives the recorded digest: ${err.message}`);
        assert.match(err.message, /Fix: remove /, 'says what to do');
        return true;
      };
      await assert.rejects(cachedToolImage('fio', stored.tag, 'lab-a'), refusal);
      const again = fakeBuilder('deb', 'ssh-ed25519 AAAAkeyA', imageA);
      await assert.rejects(buildOnHost(again.conn, 'fio', reported, true, 'lab-a'), refusal);
      assert.equal(again.builds.length, 0, 'nothing is built over it silently');
    });
  });

  it('no pointer shared by all labs is written', async () => {
    await withCache('no-latest', async () => {
      const a = fakeBuilder('deb', 'ssh-ed25519 AAAAkeyA', imageA);
      const stored = await buildOnHost(a.conn, 'fio', reported, true, 'lab-a');
      await cachedToolImage('fio', stored.tag);
      const tools = join(process.env.LAYERLAB_CACHE ?? '', 'tools');
      assert.deepEqual(
        readdirSync(tools).filter((f) => f.endsWith('.latest')),
        [],
        'no <name>.latest in the cache',
      );
      assert.equal(existsSync(join(tools, 'latest', 'lab-a', 'fio')), true, "lab-a's own pointer is there");
    });
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

  it("takes the lab's own image or the controller's own build, never a <name>.latest another lab left", async () => {
    const savedPath = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      await withCache('latest-cache', async () => {
        const lab = parseLabDefinition(flatcarOnly, 'labs/fc.yaml');
        const tools = join(process.env.LAYERLAB_CACHE ?? '', 'tools');
        storeImage('layerlab/fio:cccccccccccccccc', zstdBytes());
        writeFileSync(join(tools, 'fio.latest'), 'layerlab/fio:cccccccccccccccc\n');
        await assert.rejects(
          checkToolImagesObtainable(lab),
          /tool image\(s\) fio cannot be built for lab fc/,
          "an image another lab (or its host) left as the latest is not this lab's",
        );
        mkdirSync(join(tools, 'latest', 'fc'), { recursive: true });
        writeFileSync(join(tools, 'latest', 'fc', 'fio'), 'layerlab/fio:cccccccccccccccc\n');
        await checkToolImagesObtainable(lab);
        rmSync(join(tools, 'latest'), { recursive: true });
        const sources = await controllerSources();
        if (sources.length > 0) {
          storeImage(await toolImageTag('fio', sources), zstdBytes());
          await checkToolImagesObtainable(lab);
        }
      });
    } finally {
      process.env.PATH = savedPath;
    }
  });
});

describe('which image a controller that cannot build runs', () => {
  it("is per lab: another lab's prepare does not change this lab's tag", async () => {
    await withCache('pointer-cache', async () => {
      for (const tag of ['layerlab/fio:aaaa', 'layerlab/fio:bbbb']) storeImage(tag, zstdBytes());
      await cachedToolImage('fio', 'layerlab/fio:aaaa', 'lab-a');
      await cachedToolImage('fio', 'layerlab/fio:bbbb', 'lab-b');
      assert.equal(
        await latestCachedTag('fio', 'lab-a'),
        'layerlab/fio:aaaa',
        'lab-a keeps the image its prepare loaded',
      );
      assert.equal(await latestCachedTag('fio', 'lab-b'), 'layerlab/fio:bbbb', 'lab-b has its own');
      assert.equal(await latestCachedTag('fio', 'lab-c'), undefined, 'a lab never prepared here has none');
    });
  });
});
