/**
 * The history file (lab/history/sqlite-file.ts): its writer lock (a second
 * writer waits for a live one rather than failing a report, and gives up
 * with the holder named when it does not finish). The whole-file write is
 * util/files.ts's writeFileAtomicSync (files.test.ts). History-level behaviour (WAL files, -wal refusal, two writers, stale
 * locks, failed writes) is in history.test.ts.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { withWriteLock } from '../../../lab/history/sqlite-file.ts';
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
