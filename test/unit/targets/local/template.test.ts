/**
 * Issue 35 N11: a template's files hold a guest's memory and disks, and are
 * written 0600 whatever the umask or the mode of the file they were copied
 * from — the memory image as it is received, the disks as they are copied.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { copySparse, receiveMigration } from '../../../../lab/targets/local/template.ts';
import { HostLog } from '../../../../lab/util/log.ts';
import { which } from '../../../../lab/util/proc.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-template-'));
after(() => rmSync(work, { recursive: true, force: true }));

const modeOf = (file: string) => statSync(file).mode & 0o777;

describe('template files are 0600', () => {
  it(
    'the memory image, as it is received from QEMU',
    { skip: which('zstd') ? false : 'zstd is not installed (the memory image is compressed with it)' },
    async () => {
      const saved = process.umask(0o022);
      try {
        const file = join(work, 'memory.zst');
        const receiver = receiveMigration(join(work, 'migrate.sock'), file);
        const memory = Buffer.alloc(64 * 1024, 7);
        await new Promise<void>((resolve, reject) => {
          const socket = createConnection(join(work, 'migrate.sock'), () => socket.end(memory, resolve));
          socket.on('error', reject);
        });
        await receiver.written;
        receiver.server.close();
        assert.equal(modeOf(file).toString(8), '600', 'memory.zst is 0600');
        const back = spawnSync('zstd', ['-q', '-dc', file]);
        assert.ok(back.stdout.equals(memory), 'and holds the memory sent');
      } finally {
        process.umask(saved);
      }
    },
  );

  it('a disk, copied from a file that was 0644', async () => {
    const from = join(work, 'root.qcow2');
    writeFileSync(from, 'disk bytes');
    chmodSync(from, 0o644);
    const to = join(work, 'copy.qcow2');
    await copySparse(from, to, new HostLog(join(work, 'copy.log')));
    assert.equal(modeOf(to).toString(8), '600', 'the copy is 0600');
    assert.equal(readFileSync(to, 'utf8'), 'disk bytes', 'and holds the disk');
  });
});
