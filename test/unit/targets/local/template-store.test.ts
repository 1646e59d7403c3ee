/**
 * Prepared VM templates (issue 16): the cache side (keys, cap, what sweep
 * removes), the QMP client against a socket that speaks the protocol, the
 * guest refresh script and QEMU's restore source. Booting a VM from a
 * template is in test/e2e/local-lab.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GUEST_DIR } from '../../../../lab/paths.ts';
import { QEMU } from '../../../../lab/targets/local/qemu.ts';
import { Qmp } from '../../../../lab/targets/local/qmp.ts';
import {
  RUN_TIME_GUEST_FILES,
  type TemplateSpec,
  enforceTemplateCap,
  findTemplate,
  listTemplates,
  newTemplateMeta,
  removeTemplate,
  staleTemplates,
  templateFiles,
  templateGuestFiles,
  templateKey,
  templatesRoot,
  writeTemplateMeta,
} from '../../../../lab/targets/local/template-store.ts';
import { incomingFrom, refreshScript } from '../../../../lab/targets/local/template.ts';
import { needs } from '../../installed.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-templates-'));
const savedCache = process.env.LAYERLAB_CACHE;
before(() => {
  process.env.LAYERLAB_CACHE = join(work, 'cache');
});
after(() => {
  if (savedCache === undefined) Reflect.deleteProperty(process.env, 'LAYERLAB_CACHE');
  else process.env.LAYERLAB_CACHE = savedCache;
  rmSync(work, { recursive: true, force: true });
});

const spec: TemplateSpec = {
  lab: 'quick',
  imageKey: 'aaaaaaaaaaaaaaaa',
  accel: 'tcg',
  cpus: 2,
  memoryMiB: 1024,
  diskGiB: 4,
  profile: 'overlay2-xfs',
  toolImageTags: { fio: 'layerlab/fio:1', dbench: 'layerlab/dbench:2' },
};

/** A finished template folder with files of the given size (bytes written, so allocated). */
function fakeTemplate(key: string, bytes: number, lastUsedAt: string, backing = '/nonexistent/base.raw'): string {
  const dir = join(templatesRoot(), key);
  mkdirSync(dir, { recursive: true });
  const files = templateFiles(dir);
  const made = spawnSync('qemu-img', [
    'create',
    '-q',
    '-f',
    'qcow2',
    '-u',
    '-b',
    backing,
    '-F',
    'raw',
    files.root,
    '1G',
  ]);
  assert.equal(made.status, 0, `qemu-img create: ${made.stderr}`);
  writeFileSync(files.data, Buffer.alloc(bytes, 1));
  writeFileSync(files.memory, 'm');
  writeFileSync(files.key, 'k');
  writeTemplateMeta(dir, { ...newTemplateMeta(key, spec, 'ssh-ed25519 AAAA host'), lastUsedAt });
  return dir;
}

describe('template keys', () => {
  it('every part of the spec is in the key; the order of tool images is not', async (t) => {
    const missing = needs(QEMU); // the key includes the installed QEMU's version line
    if (missing) return t.skip(missing);
    const base = await templateKey(spec);
    assert.match(base, /^[0-9a-f]{16}$/);
    assert.equal(
      await templateKey({ ...spec, toolImageTags: { dbench: 'layerlab/dbench:2', fio: 'layerlab/fio:1' } }),
      base,
    );
    const variants: Partial<TemplateSpec>[] = [
      { lab: 'other' },
      { imageKey: 'bbbbbbbbbbbbbbbb' },
      { accel: 'kvm' },
      { cpus: 1 },
      { memoryMiB: 2048 },
      { diskGiB: 8 },
      { profile: 'btrfs' },
      { toolImageTags: { fio: 'layerlab/fio:other', dbench: 'layerlab/dbench:2' } },
      { toolImageTags: { fio: 'layerlab/fio:1' } },
    ];
    for (const v of variants) assert.notEqual(await templateKey({ ...spec, ...v }), base, JSON.stringify(v));
  });

  it('covers every guest file that prepare runs, and none that is pushed afresh before it runs', () => {
    // A guest folder of its own: the run-time files at the top and, as a new
    // file would be, one that nobody listed (it must count).
    const guest = join(work, 'guest-files');
    mkdirSync(join(guest, 'profiles'), { recursive: true });
    const shaping = ['lib.sh', 'load-image.sh', 'profiles/overlay2-xfs.sh', 'new-helper.sh', 'profiles/env.sh'];
    for (const f of [...RUN_TIME_GUEST_FILES, ...shaping]) writeFileSync(join(guest, f), f);
    const covered = templateGuestFiles(guest).map((f) => relative(guest, f));
    assert.deepEqual(covered, [...shaping].sort(), 'only the run-time files at the top of guest/ are left out');
    // In this checkout: each name in the list is a real file (a stale name after a rename would
    // leave the list saying what it no longer does), and what shapes a prepared VM is covered.
    const real = templateGuestFiles().map((f) => relative(GUEST_DIR, f));
    for (const f of RUN_TIME_GUEST_FILES) {
      assert.equal(real.includes(f), false, `${f} is not in the key`);
      assert.ok(existsSync(join(GUEST_DIR, f)), `guest/${f} exists`);
    }
    for (const f of ['lib.sh', 'load-image.sh', 'profiles/overlay2-xfs.sh', 'profiles/devicemapper-lvm.sh']) {
      assert.ok(real.includes(f), `guest/${f} is in the key`);
    }
  });
});

describe('the template cache', () => {
  // Real qcow2 files (qemu-img) whose metadata records the installed QEMU's version.
  const cacheTools = needs('qemu-img', QEMU);
  it('lists finished templates least recently used first; the cap removes the oldest until the rest fit', async (t) => {
    if (cacheTools) return t.skip(cacheTools);
    fakeTemplate('1111111111111111', 300_000, '2026-11-01T00:00:00.000Z');
    fakeTemplate('2222222222222222', 300_000, '2026-11-20T00:00:00.000Z');
    fakeTemplate('3333333333333333', 300_000, '2026-11-10T00:00:00.000Z');
    mkdirSync(join(templatesRoot(), '4444444444444444'), { recursive: true }); // unfinished: no files
    assert.deepEqual(
      listTemplates().map((t) => t.key),
      ['1111111111111111', '3333333333333333', '2222222222222222'],
    );
    const one = listTemplates()[0]?.bytes ?? 0;
    assert.ok(one >= 300_000, `allocated bytes counted (${one})`);
    const removed = await enforceTemplateCap(2 * one + 1000);
    assert.deepEqual(
      removed.map((t) => t.key),
      ['1111111111111111'],
      'only the least recently used went',
    );
    assert.equal(findTemplate('1111111111111111'), undefined);
    assert.ok(findTemplate('2222222222222222'), 'the newest stays');
  });

  it('sweep finds unfinished saves of dead processes, unreadable folders and templates whose guest image is gone; --templates finds all', (t) => {
    if (cacheTools) return t.skip(cacheTools);
    const image = join(work, 'base.raw');
    writeFileSync(image, '');
    fakeTemplate('5555555555555555', 1000, new Date().toISOString(), image);
    // A save by a process that no longer exists (pid 2^22 + 1 is above pid_max's default).
    mkdirSync(join(templatesRoot(), '6666666666666666.partial-4194305-abcd'), { recursive: true });
    const stale = new Map(staleTemplates().map((s) => [s.dir.split('/').pop(), s.reason]));
    assert.equal(stale.get('5555555555555555'), undefined, 'a usable template stays');
    assert.match(stale.get('6666666666666666.partial-4194305-abcd') ?? '', /unfinished save/);
    assert.match(stale.get('4444444444444444') ?? '', /incomplete/);
    assert.match(stale.get('2222222222222222') ?? '', /guest image is no longer in the cache/);
    const everything = staleTemplates(true).map((s) => s.dir.split('/').pop());
    assert.ok(everything.includes('5555555555555555'), '--templates removes usable ones too');
  });

  it('removes only folders directly under the templates root named like a template', async () => {
    await assert.rejects(removeTemplate({ dir: join(templatesRoot(), '..') }), /not a template folder/);
    await assert.rejects(
      removeTemplate({ dir: join(templatesRoot(), 'x', '..', '..', 'images') }),
      /not a template folder/,
    );
    await assert.rejects(removeTemplate({ dir: work }), /not a template folder/);
  });
});

describe('QMP client', () => {
  it('reads the greeting, negotiates, runs commands and turns QEMU errors into rejections', async () => {
    const socketPath = join(work, 'qmp.sock');
    const seen: string[] = [];
    const server = createServer((socket) => {
      socket.write('{"QMP": {"version": {"qemu": {"major": 7}}, "capabilities": []}}\r\n');
      let buffer = '';
      socket.on('data', (chunk) => {
        buffer += chunk.toString();
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          const { execute } = JSON.parse(buffer.slice(0, nl)) as { execute: string };
          buffer = buffer.slice(nl + 1);
          seen.push(execute);
          if (execute === 'query-status') {
            // An event first: it is not the answer.
            socket.write('{"event": "RESUME", "timestamp": {"seconds": 1, "microseconds": 2}}\r\n');
            socket.write('{"return": {"status": "paused", "running": false}}\r\n');
          } else if (execute === 'cont') socket.write('{"error": {"class": "GenericError", "desc": "no"}}\r\n');
          else socket.write('{"return": {}}\r\n');
        }
      });
    });
    await new Promise<void>((r) => server.listen(socketPath, r));
    try {
      const qmp = await Qmp.connect(socketPath);
      assert.deepEqual(await qmp.execute('query-status'), { status: 'paused', running: false });
      await assert.rejects(qmp.execute('cont'), /QMP cont: no/);
      qmp.close();
      assert.deepEqual(seen, ['qmp_capabilities', 'query-status', 'cont']);
    } finally {
      server.close();
    }
  });
});

describe('restoring', () => {
  it("QEMU's restore source decompresses the template's memory even from a path with spaces and quotes", (t) => {
    const missing = needs('zstd');
    if (missing) return t.skip(missing);
    const dir = join(work, "it's a dir");
    mkdirSync(dir, { recursive: true });
    const at = '2026-11-01T00:00:00.000Z';
    const meta = { key: '7777777777777777', createdAt: at, lastUsedAt: at, hostKey: 'k', qemu: 'QEMU 9', spec };
    const template = { key: '7777777777777777', dir, bytes: 0, meta };
    const memory = templateFiles(dir).memory;
    assert.equal(
      spawnSync('sh', ['-c', `printf 'state bytes' | zstd -q -o '${memory.replaceAll("'", "'\\''")}'`]).status,
      0,
    );
    const uri = incomingFrom(template);
    assert.match(uri, /^exec:/);
    // QEMU runs what follows exec: with /bin/sh -c.
    const out = spawnSync('/bin/sh', ['-c', uri.slice('exec:'.length)], { encoding: 'utf8' });
    assert.equal(out.stdout, 'state bytes');
  });

  it('the refresh script sets the clock, reseeds, installs the keys and hostname, and quotes every value', () => {
    const hostile = "h'; touch /tmp/pwned; echo '";
    const script = refreshScript(
      {
        hostname: hostile,
        keys: {
          clientPrivate: 'unused by the script',
          hostPrivate: '-----BEGIN KEY-----\nabc\n-----END KEY-----',
          hostPublic: 'ssh-ed25519 HOST',
          clientPublic: 'ssh-ed25519 CLIENT',
        },
      },
      1_796_000_000_123,
      Buffer.alloc(64, 7),
    );
    assert.match(script, /^set -euo pipefail\n/);
    assert.match(script, /date -s @1796000000\.123 /);
    assert.match(script, /base64 -d > \/dev\/urandom/);
    assert.match(script, /ioctl\(\$f, 0x5207, 0\)/, 'RNDRESEEDCRNG');
    assert.match(script, /ssh_host_ed25519_key\.new\n/);
    assert.match(script, /'ssh-ed25519 CLIENT' > \/root\/.ssh\/authorized_keys/);
    assert.match(script, /\nsystemctl restart ssh\.service\n/, 'sshd ≥ 9.8 serves only the keys it started with');
    assert.doesNotMatch(script, /unused by the script/, 'the login key stays on the controller');
    assert.equal(spawnSync('bash', ['-n'], { input: script }).status, 0, 'valid bash');
    // The hostile hostname reaches printf and hostname as one literal word.
    const hostLines = script.split('\n').filter((l) => l.includes('pwned'));
    for (const line of hostLines) {
      const echoed = spawnSync(
        'bash',
        [
          '-c',
          line
            .replace(/^printf '%s\\n' /, 'printf "%s|" ')
            .replace(/ > \/etc\/hostname$/, '')
            .replace(/^hostname /, 'printf "%s|" '),
        ],
        { encoding: 'utf8' },
      );
      assert.equal(echoed.stdout, `${hostile}|`, line);
    }
    const clockOnly = refreshScript({}, 0, Buffer.alloc(64));
    assert.doesNotMatch(
      clockOnly,
      /authorized_keys|hostname|systemctl/,
      'a paused guest keeps its identity and its sshd',
    );
  });
});
