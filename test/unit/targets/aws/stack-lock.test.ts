/**
 * Which Pulumi stack locks layerlab may cancel: only one left by a dead run
 * of its own on this machine, proven by the lock's content (Pulumi's DIY
 * backend message) against the record the run left beside the lab's state.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  type LockWorld,
  type RunMarker,
  clearRunMarker,
  isLockedError,
  judgeLocks,
  parseLocks,
  readRunMarker,
  thisMachine,
  writeRunMarker,
} from '../../../../lab/targets/aws/stack-lock.ts';

/** Pulumi 3.x DIY backend (pkg/backend/diy/lock.go), as the Automation API's CommandError carries it. */
const DIY_MESSAGE = `code: 255
 stdout:
 stderr: error: the stack is currently locked by 2 lock(s). Either wait for the other process(es) to end or delete the lock file with \`pulumi cancel\`.
  s3://state/.pulumi/locks/organization/layerlab/night/6a1c4d2e-5b7f-4b8e-9f0a-1c2d3e4f5a6b.json: created by ci-runner@ip-10-0-0-5 (pid 31337) at 2026-12-04T03:00:07Z
  file:///home/me/.pulumi/locks/organization/layerlab/night/aa.json: created by me@laptop.local (pid 12) at 2026-12-04T03:00:09+01:00
`;

describe('targets/aws/stack-lock', () => {
  it('reads who holds each lock from the DIY backend message', () => {
    assert.ok(isLockedError(Object.assign(new Error(DIY_MESSAGE), { name: 'CommandError' })), 'seen as a lock');
    assert.deepEqual(parseLocks(DIY_MESSAGE), [
      {
        url: 's3://state/.pulumi/locks/organization/layerlab/night/6a1c4d2e-5b7f-4b8e-9f0a-1c2d3e4f5a6b.json',
        user: 'ci-runner',
        host: 'ip-10-0-0-5',
        pid: 31337,
        at: '2026-12-04T03:00:07Z',
      },
      {
        url: 'file:///home/me/.pulumi/locks/organization/layerlab/night/aa.json',
        user: 'me',
        host: 'laptop.local',
        pid: 12,
        at: '2026-12-04T03:00:09+01:00',
      },
    ]);
    assert.deepEqual(parseLocks('[409] Conflict: Another update is currently in progress.'), []);
  });

  it('cancels only when our record, the machine, the user, both pids and the time all agree', () => {
    const lock = { url: 'u', user: 'ci', host: 'ctl', pid: 7, at: '2026-12-04T03:00:07Z' };
    const marker: RunMarker = {
      pid: 5,
      startTicks: '1',
      stack: 's',
      host: 'ctl',
      user: 'ci',
      since: '2026-12-04T03:00:06.500Z',
    };
    const world: LockWorld = { host: 'ctl', user: 'ci', pidAlive: () => false, markerAlive: () => false };
    assert.equal(judgeLocks('s', [lock], marker, world).cancel, true);
    // The lock is whole seconds: one taken in the marker's own second still counts.
    assert.equal(judgeLocks('s', [{ ...lock, at: '2026-12-04T03:00:06Z' }], marker, world).cancel, true);
    const refused: [string, ReturnType<typeof judgeLocks>][] = [
      ['older lock', judgeLocks('s', [{ ...lock, at: '2026-12-04T02:00:00Z' }], marker, world)],
      ['other stack', judgeLocks('t', [lock], marker, world)],
      ['other user', judgeLocks('s', [{ ...lock, user: 'bob' }], marker, world)],
      ['lock pid alive', judgeLocks('s', [lock], marker, { ...world, pidAlive: () => true })],
      ['run alive', judgeLocks('s', [lock], marker, { ...world, markerAlive: () => true })],
      ['unreadable time', judgeLocks('s', [{ ...lock, at: 'yesterday' }], marker, world)],
    ];
    for (const [label, verdict] of refused) assert.equal(verdict.cancel, false, label);
  });

  describe('the run record', () => {
    const home = mkdtempSync(join(tmpdir(), 'layerlab-stack-lock-'));
    const saved = process.env.LAYERLAB_HOME;
    process.env.LAYERLAB_HOME = home;
    after(() => {
      if (saved === undefined) Reflect.deleteProperty(process.env, 'LAYERLAB_HOME');
      else process.env.LAYERLAB_HOME = saved;
      rmSync(home, { recursive: true, force: true });
    });

    it('names this process while it runs, and a finished process is seen as gone', async () => {
      await writeRunMarker('lab1', 'night');
      const mine = readRunMarker('lab1');
      assert.equal(mine?.pid, process.pid);
      assert.equal(mine?.stack, 'night');
      assert.equal(thisMachine().markerAlive(mine as RunMarker), true);
      const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
        encoding: 'utf8',
      });
      const dead = { ...(mine as RunMarker), pid: Number(child.stdout) };
      assert.equal(thisMachine().markerAlive(dead), false);
      clearRunMarker('lab1');
      assert.equal(readRunMarker('lab1'), undefined);
    });
  });
});
