/**
 * `layerlab report` on a run recorded before a scenario was renamed or
 * removed: the record keeps plain names, so the run still re-reports, and
 * the report says which scenario this version does not know.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { writeRun } from '../run-fixture.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const results = mkdtempSync(join(tmpdir(), 'layerlab-report-'));
after(() => rmSync(results, { recursive: true, force: true }));

/** `layerlab report <args>` through the CLI entry, on the results folder of this test. */
function layerlab(...args: string[]) {
  return spawnSync(process.execPath, [join(ROOT, 'bin', 'layerlab.js'), ...args], {
    cwd: results,
    env: { ...process.env, LAYERLAB_RESULTS: results },
    encoding: 'utf8',
  });
}

/** Replaces every `"scenario":"<from>"` of a run file by `to`, as a run recorded under another name would hold it. */
function renameScenario(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  assert.ok(text.includes(`"scenario":"${from}"`), `${file} names ${from}`);
  writeFileSync(file, text.replaceAll(`"scenario":"${from}"`, `"scenario":"${to}"`));
}

describe('layerlab report of a run whose scenario this version does not know', () => {
  it('exits 0 with a report that names the scenario as unknown and shows its recorded samples', () => {
    const runId = '20261130-000000-demo-0a0a';
    const dir = join(results, runId);
    writeRun(dir);
    renameScenario(join(dir, 'plan.json'), 'fio', 'fio-classic');
    renameScenario(join(dir, 'samples.ndjson'), 'fio', 'fio-classic');

    const out = layerlab('report', runId);
    assert.equal(out.status, 0, out.stderr);
    assert.equal(out.stdout.trim(), join(dir, 'report.md'));
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    assert.match(md, /## fio-classic\n/);
    assert.match(md, /Scenario `fio-classic` is unknown to this version of layerlab/);
    // Its samples kept as recorded (the raw files have no parser here): a row per series, mount and metric.
    assert.match(md, /\| randread\/read \| layer \| bw \| [\d.]+ \([\d.]+–[\d.]+\) \| KiB\/s \| 5 \|/);
    const samples = readFileSync(join(dir, 'samples.ndjson'), 'utf8').trim().split('\n');
    assert.equal(samples.length, 2 * 2 * 5 * 3, 'every recorded sample kept');

    // report.json says so too, for a tool that reads it.
    assert.equal(layerlab('report', runId, '--format', 'json').status, 0);
    const json = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
    assert.deepEqual(json.scenarios, [{ name: 'fio-classic', known: false, metrics: [] }]);
  });
});
