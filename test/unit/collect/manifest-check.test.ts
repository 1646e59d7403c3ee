/** The guest's MANIFEST (written by guest/lib.sh itself) against what the controller unpacked. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { checkManifest } from '../../../lab/collect/manifest-check.ts';

const LIB = resolve(import.meta.dirname, '..', '..', '..', 'guest', 'lib.sh');
const work = mkdtempSync(join(tmpdir(), 'layerlab-manifest-'));
after(() => rmSync(work, { recursive: true, force: true }));

function trialDir(name: string): string {
  const dir = join(work, name);
  mkdirSync(join(dir, 'sub'), { recursive: true });
  writeFileSync(join(dir, 'fio.json'), '{"jobs": []}\n');
  writeFileSync(join(dir, 'meta.json'), '{"exit_status": "0"}\n');
  writeFileSync(join(dir, 'sub', 'with space.txt'), 'x'.repeat(1000));
  execFileSync('bash', ['-c', 'set -euo pipefail; source "$1"; ll_write_manifest "$2"', '_', LIB, dir]);
  return dir;
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
    execFileSync('bash', ['-c', 'set -euo pipefail; source "$1"; ll_write_manifest "$2"', '_', LIB, dir]);
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
