/**
 * bench/tap.ts reads node's own TAP: two real `node --test` streams (a
 * stand-in unit stream, then an e2e one with two files of suites, one test
 * failing), concatenated as `npm test` prints them in `.ci/run`'s log.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { e2eDurations } from '../../../bench/tap.ts';

const dir = mkdtempSync(join(tmpdir(), 'layerlab-tap-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** node --test on these files, with the TAP reporter; its stdout. */
function tapOf(files: Record<string, string>): string {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const r = spawnSync(
    process.execPath,
    ['--test', '--test-reporter=tap', '--test-concurrency=2', ...Object.keys(files).map((f) => join(dir, f))],
    // Without the parent runner's NODE_TEST_CONTEXT, or the child would report to it, not print TAP.
    { encoding: 'utf8', env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
  );
  return r.stdout;
}

const HEAD = "import { describe, it } from 'node:test';\nconst wait = (ms) => new Promise((r) => setTimeout(r, ms));\n";

describe('bench/tap.ts', () => {
  it("finds each e2e file's suite and its tests with their durations and results, not the unit stream's", () => {
    const unit = tapOf({ 'u.test.mjs': `${HEAD}describe('a unit suite', () => { it('u1', () => {}); });\n` });
    const e2e = tapOf({
      'a.test.mjs': `${HEAD}describe('file a', () => { it('slow', () => wait(300)); it('fast', () => {}); });\n`,
      'b.test.mjs': `${HEAD}describe('file b', () => { it('fails', () => { throw new Error('no'); }); });\n`,
    });
    const { streams, e2eFiles } = e2eDurations(`${unit}\n> layerlab test:e2e\n\n${e2e}`);
    assert.equal(streams.length, 2, 'two streams, each with its summary');
    assert.deepEqual(
      e2eFiles.map((f) => [f.name, f.ok, f.tests.map((t) => [t.name, t.ok])]),
      [
        [
          'file a',
          true,
          [
            ['slow', true],
            ['fast', true],
          ],
        ],
        ['file b', false, [['fails', false]]],
      ],
    );
    const slow = e2eFiles[0]?.tests[0]?.seconds ?? 0;
    assert.ok(slow >= 0.29 && slow < 5, `the slow test's own duration (${slow} s)`);
    assert.ok((e2eFiles[0]?.seconds ?? 0) >= slow, "a file's suite lasts at least as long as its tests");
  });
});
