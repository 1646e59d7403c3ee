/** accountRunTime: a run's trial times per scenario, with the timed part its recorded parameters fix. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { accountRunTime } from '../../../lab/analyze/analysis.ts';
import { loadRun } from '../../../lab/record/load.ts';
import { writeRun } from '../run-fixture.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-analysis-'));
after(() => rmSync(work, { recursive: true, force: true }));

describe('accountRunTime', () => {
  it("fio at quick's recorded parameters: 2 jobs × (1 s ramp + 2 s runtime) of each 8 s work phase are timed", () => {
    const dir = join(work, 'quick');
    writeRun(dir, { quick: true, phases: true, repetitions: 2 });
    const [fio, ...rest] = accountRunTime(loadRun(dir));
    assert.equal(rest.length, 0);
    assert.equal(fio?.scenario, 'fio');
    assert.equal(fio?.trials, 11, '2 repetitions × 2 hosts × 3 mounts, one failed');
    assert.equal(fio?.parts.timed, 11 * 6);
    assert.equal(fio?.parts.tool, 11 * 2);
    assert.equal(fio?.ratio, 14 / 6);
  });

  it('parameters the run did not record, or this version cannot read: the whole work phase counts as timed', () => {
    const unrecorded = join(work, 'unrecorded');
    writeRun(unrecorded, { phases: true, repetitions: 1 });
    assert.equal(accountRunTime(loadRun(unrecorded))[0]?.parts.tool, 0);

    const odd = join(work, 'odd');
    writeRun(odd, { quick: true, phases: true, repetitions: 1 });
    const manifest = JSON.parse(readFileSync(join(odd, 'manifest.json'), 'utf8'));
    manifest.lab.scenarios.fio.runtime = 'two seconds';
    writeFileSync(join(odd, 'manifest.json'), JSON.stringify(manifest));
    const [fio] = accountRunTime(loadRun(odd));
    assert.equal(fio?.parts.tool, 0);
    assert.equal(fio?.parts.timed, (fio?.trials ?? 0) * 8);
  });

  it('a run held in memory (no trial times): no rows', () => {
    const dir = join(work, 'empty');
    writeRun(dir, { repetitions: 1 });
    const run = loadRun(dir);
    assert.deepEqual(accountRunTime({ ...run, times: undefined }), []);
  });
});
