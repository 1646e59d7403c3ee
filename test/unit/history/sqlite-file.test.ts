/**
 * The history file (lab/history/sqlite-file.ts): its writer lock (a second
 * writer waits for a live one rather than failing a report, and gives up
 * with the holder named when it does not finish) and its whole-file write.
 * History-level behaviour (WAL files, -wal refusal, two writers, stale
 * locks, failed writes) is in history.test.ts.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { withWriteLock, writeAtomically } from '../../../lab/history/sqlite-file.ts';
import { LockHeldError } from '../../../lab/util/lock.ts';
import { processStartTicks } from '../../../lab/util/proc.ts';
import { withStderrCaptured } from '../stderr-capture.ts';

const dir = mkdtempSync(join(tmpdir(), 'layerlab-sqlite-file-'));
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** A live process recorded as the holder of `<path>.lock`; it removes the lock (finishes its write) after `ms`. */
async function liveHolder(path: string, ms: number): Promise<ChildProcess> {
  const lock = `${path}.lock`;
  const release = `setTimeout(() => require('node:fs').unlinkSync(${JSON.stringify(lock)}), ${ms}); setTimeout(() => {}, ${ms + 60_000})`;
  const child = spawn(process.execPath, ['-e', release], { stdio: 'ignore' });
  children.push(child);
  await new Promise((ready) => child.once('spawn', ready));
  const pid = child.pid as number;
  const holder = {
    pid,
    startTicks: processStartTicks(pid),
    since: new Date().toISOString(),
    command: 'layerlab report',
  };
  writeFileSync(lock, `${JSON.stringify(holder)}\n`);
  return child;
}

describe('the writer lock beside the history', () => {
  it('waits for a live writer to finish, says whom it waits for, then writes', async () => {
    const path = join(dir, 'a.sqlite');
    const holder = await liveHolder(path, 400);
    const started = Date.now();
    const { value, said } = await withStderrCaptured(() => withWriteLock(path, () => 'written'));
    assert.equal(value, 'written');
    assert.ok(Date.now() - started >= 300, `waited for the holder: ${Date.now() - started} ms`);
    assert.match(said, new RegExp(`waiting for pid ${holder.pid} \\(layerlab report\\) to finish writing`));
    assert.ok(!existsSync(`${path}.lock`), 'released');
    holder.kill('SIGKILL');
  });

  it('gives up after its wait with the holder named (exit 2), having run nothing', async () => {
    const path = join(dir, 'b.sqlite');
    const holder = await liveHolder(path, 60_000);
    let ran = false;
    const { said } = await withStderrCaptured(() =>
      assert.throws(
        () =>
          withWriteLock(
            path,
            () => {
              ran = true;
            },
            200,
          ),
        (err: unknown) =>
          err instanceof LockHeldError && err.exitCode === 2 && err.message.includes(`pid ${holder.pid}`),
      ),
    );
    assert.ok(!ran, 'nothing written without the lock');
    assert.match(said, /waiting for pid/);
    assert.ok(existsSync(`${path}.lock`), "the live holder's lock stays");
    holder.kill('SIGKILL');
  });
});

describe('writing the file back', () => {
  it('replaces the file whole and leaves no temporary file', () => {
    const sub = mkdtempSync(join(dir, 'w-'));
    const path = join(sub, 'h.sqlite');
    writeFileSync(path, 'old');
    writeAtomically(path, new TextEncoder().encode('new'));
    assert.equal(readFileSync(path, 'utf8'), 'new');
    assert.deepEqual(readdirSync(sub), ['h.sqlite'], 'only the file itself');
  });

  it('tells why it could not start the write, not that there was no temporary file to remove', () => {
    const notADir = join(dir, 'plain-file');
    writeFileSync(notADir, 'x');
    assert.throws(
      () => writeAtomically(join(notADir, 'h.sqlite'), new Uint8Array([1])),
      (err: NodeJS.ErrnoException) => err.syscall === 'open',
    );
  });
});
