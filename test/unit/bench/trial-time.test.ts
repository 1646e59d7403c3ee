/** bench/trial-time.ts: trial wall / timed work per scenario of a run folder. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { trialTimeLines } from '../../../bench/trial-time.ts';
import { writeRun } from '../run-fixture.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-bench-trial-time-'));
after(() => rmSync(work, { recursive: true, force: true }));
const SCRIPT = resolve(import.meta.dirname, '..', '..', '..', 'bench', 'trial-time.ts');

describe('bench/trial-time.ts', () => {
  it("quick's fio: 14 s of wall for 6 s of jobs is 2.33, and where the rest went", () => {
    const dir = join(work, 'quick');
    writeRun(dir, { quick: true, phases: true, repetitions: 2 });
    const [head, parts, ...rest] = trialTimeLines(dir);
    assert.equal(rest.length, 0, 'one scenario, two lines');
    assert.match(
      head ?? '',
      /^fio +11 trial\(s\) {2}wall 14\.00 s {2}timed work 6\.00 s {2}trial wall \/ timed work 2\.33$/,
    );
    assert.match(
      parts ?? '',
      /timed work 6\.00 · tool overhead 2\.00 · container start 1\.50 .* controller and SSH 3\.00$/,
    );
  });

  it('a run before phases: its trials counted, nothing made up', () => {
    const dir = join(work, 'before');
    writeRun(dir, { quick: true, repetitions: 1 });
    assert.deepEqual(trialTimeLines(dir), [], 'no wall times either: nothing to say');
    const journal = join(dir, 'journal.ndjson');
    const lines = readFileSync(journal, 'utf8').trim().split('\n');
    writeFileSync(journal, `${lines.map((l) => JSON.stringify({ ...JSON.parse(l), wallSeconds: 9 })).join('\n')}\n`);
    assert.deepEqual(trialTimeLines(dir), ['fio             5 trial(s) without phases (a run before they were kept)']);
  });

  it('from the command line: the lines for a run folder; a folder that is not a run exits 2 saying so', () => {
    const dir = join(work, 'quick');
    const ok = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, dir], { encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /trial wall \/ timed work 2\.33/);
    const bad = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, work], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /is not a run folder \(no manifest\.json\)/);
  });
});
