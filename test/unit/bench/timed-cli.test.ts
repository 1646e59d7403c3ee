/** bench/timed-cli.ts: timedCommand runs a command where it is told, with its exit code and wall time. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { timedCommand } from '../../../bench/timed-cli.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-bench-timed-cli-'));
after(() => rmSync(work, { recursive: true, force: true }));

describe('timedCommand', () => {
  it('runs in cwd with the env given; its exit code and a wall time covering its run', async () => {
    const script =
      "require('fs').writeFileSync('where', process.cwd() + ' ' + process.env.X); setTimeout(() => process.exit(3), 300)";
    const r = await timedCommand(process.execPath, ['-e', script], { env: { ...process.env, X: 'y' }, cwd: work });
    assert.equal(r.code, 3);
    assert.equal(readFileSync(join(work, 'where'), 'utf8'), `${work} y`);
    assert.ok(r.seconds >= 0.3 && r.seconds < 30, `wall ${r.seconds} s for a 0.3 s command`);
  });

  // Without its 'error' handler the promise would never settle: a timeout makes that a failure, not a hang.
  it('a command that cannot start fails (code null) instead of crashing the bench', { timeout: 10_000 }, async () => {
    const r = await timedCommand(join(work, 'no-such-command'), [], { env: process.env });
    assert.equal(r.code, null);
  });
});
