/**
 * The guest's MANIFEST (written by guest/lib.sh itself) against what the
 * controller unpacked. What a guest sends back is not trusted (issue 12,
 * finding 4): MANIFEST paths stay inside the pulled folder.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { checkManifest } from '../../../lab/collect/manifest-check.ts';
import { guestFolder, writeGuestManifest } from '../guest-folder.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-manifest-'));
after(() => rmSync(work, { recursive: true, force: true }));

function trialDir(name: string): string {
  return guestFolder(work, name, {
    'fio.json': '{"jobs": []}\n',
    'meta.json': '{"exit_status": "0"}\n',
    'sub/with space.txt': 'x'.repeat(1000),
  });
}

describe('trial MANIFEST check', () => {
  it('accepts exactly what the guest wrote', async () => {
    assert.deepEqual(await checkManifest(trialDir('ok')), []);
  });

  it('names a changed byte, a short file, a missing file and an extra file', async () => {
    const dir = trialDir('bad');
    writeFileSync(join(dir, 'fio.json'), '{"jobz": []}\n'); // same size, other bytes
    truncateSync(join(dir, 'sub', 'with space.txt'), 10);
    unlinkSync(join(dir, 'meta.json'));
    writeFileSync(join(dir, 'stray.txt'), 'x');
    const problems = await checkManifest(dir);
    assert.deepEqual(problems.sort(), [
      "fio.json: sha256 differs from the guest's",
      'meta.json: missing',
      "stray.txt: not in the guest's MANIFEST",
      'sub/with space.txt: 10 bytes, the guest wrote 1000',
    ]);
  });

  it('written again, it lists every file but itself (a file called MANIFEST in a subfolder is listed)', async () => {
    const dir = trialDir('again');
    writeFileSync(join(dir, 'sub', 'MANIFEST'), 'a scenario may name a file so\n');
    writeGuestManifest(dir);
    assert.deepEqual(await checkManifest(dir), []);
    const listed = readFileSync(join(dir, 'MANIFEST'), 'utf8').trim().split('\n');
    assert.deepEqual(listed.map((line) => line.split(' ').slice(2).join(' ')).sort(), [
      'fio.json',
      'meta.json',
      'sub/MANIFEST',
      'sub/with space.txt',
    ]);
  });

  it('a folder without MANIFEST is an incomplete transfer', async () => {
    const dir = join(work, 'none');
    mkdirSync(dir);
    assert.deepEqual(await checkManifest(dir), ['no MANIFEST from the guest (incomplete transfer?)']);
  });
});

describe('MANIFEST paths stay inside the pulled folder (issue 12, finding 4)', () => {
  const hostile: Record<string, string> = {
    dotdot: '../../../../etc/hostname',
    absolute: '/etc/passwd',
    dotSegment: './fio.json',
    doubleSlash: 'sub//x',
  };
  for (const [name, path] of Object.entries(hostile)) {
    it(`refuses a MANIFEST path like ${JSON.stringify(path)}, naming the line`, async () => {
      const dir = guestFolder(work, `hostile-${name}`, { 'fio.json': '{}' });
      writeFileSync(join(dir, 'MANIFEST'), `${'0'.repeat(64)} 0 ${path}\n`, { flag: 'a' });
      const problems = await checkManifest(dir);
      assert.ok(
        problems.some((p) => p.startsWith('MANIFEST line 2: ')),
        `the bad line is named: ${problems.join('; ')}`,
      );
    });
  }

  it('"../../../../dev/zero" is not read forever', () => {
    const dir = guestFolder(work, 'dev-zero', { 'fio.json': '{}' });
    writeFileSync(join(dir, 'MANIFEST'), `${'0'.repeat(64)} 5 ../../../../../../../../dev/zero\n`, { flag: 'a' });
    // In a child process: a check that reads /dev/zero never ends, and would keep this one alive.
    const check = resolve(import.meta.dirname, '..', '..', '..', 'lab', 'collect', 'manifest-check.ts');
    const script = `import(${JSON.stringify(check)}).then(async (m) => console.log(JSON.stringify(await m.checkManifest(${JSON.stringify(dir)}))))`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
      cwd: resolve(import.meta.dirname, '..', '..', '..'),
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(r.status, 0, `the check ended by itself (signal ${r.signal}): ${r.stderr}`);
    const problems: string[] = JSON.parse(r.stdout);
    assert.ok(
      problems.some((p) => p.startsWith('MANIFEST line 2: path with ".."')),
      `the line is refused: ${r.stdout}`,
    );
  });

  it('does not tell whether a controller file exists', async () => {
    const exists = guestFolder(work, 'oracle-a', { 'fio.json': '{}' });
    const absent = guestFolder(work, 'oracle-b', { 'fio.json': '{}' });
    writeFileSync(join(exists, 'MANIFEST'), `${'0'.repeat(64)} 5 ../../../../etc/hostname\n`, { flag: 'a' });
    writeFileSync(join(absent, 'MANIFEST'), `${'0'.repeat(64)} 5 ../../../../etc/no-such-file-xyz\n`, {
      flag: 'a',
    });
    const a = (await checkManifest(exists)).map((p) => p.replace(/"[^"]*"|\S*etc\S*/g, 'PATH'));
    const b = (await checkManifest(absent)).map((p) => p.replace(/"[^"]*"|\S*etc\S*/g, 'PATH'));
    assert.deepEqual(a, b, 'the same answer whether the file exists or not');
    assert.ok(a.length > 0, 'and it is a refusal');
  });

  it('a symlink in the folder is not a file (lstat), even when the MANIFEST lists its target', async () => {
    const dir = guestFolder(work, 'link', { 'fio.json': '{}' });
    symlinkSync('/etc/hostname', join(dir, 'host'));
    const problems = await checkManifest(dir);
    assert.ok(
      problems.some((p) => p === 'host: not a regular file'),
      `the link is refused: ${problems.join('; ')}`,
    );
  });

  it('a size larger than what was unpacked is never hashed', async () => {
    const dir = guestFolder(work, 'size', { 'fio.json': '{}' });
    writeFileSync(join(dir, 'MANIFEST'), `${'0'.repeat(64)} 99999999999 fio.json\n`);
    assert.deepEqual(await checkManifest(dir), ['fio.json: 2 bytes, the guest wrote 99999999999']);
  });
});
