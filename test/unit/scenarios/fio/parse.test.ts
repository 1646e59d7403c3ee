import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { extractJson, parseFioJson } from '../../../../lab/scenarios/fio/parse.ts';

const fixture = (name: string) =>
  readFileSync(join(import.meta.dirname, '..', '..', '..', 'fixtures', 'fio', name), 'utf8');

describe('fio parser', () => {
  it('turns the four jobs of a real fio 3.33 run into bw, IOPS and latency per job and direction', () => {
    const { values, failures } = parseFioJson(fixture('four-jobs.json'));
    assert.deepEqual(failures, []);
    const jobs = [...new Set(values.map((v) => `${v.labels.job}/${v.labels.direction}`))];
    assert.deepEqual(jobs, ['seqwrite/write', 'seqread/read', 'randwrite/write', 'randread/read']);
    for (const job of jobs) {
      const metrics = values.filter((v) => `${v.labels.job}/${v.labels.direction}` === job).map((v) => v.metric);
      assert.deepEqual(metrics, ['bw', 'iops', 'clat_mean', 'clat_p50', 'clat_p99']);
    }
    const raw = JSON.parse(fixture('four-jobs.json'));
    const seqread = values.find((v) => v.labels.job === 'seqread' && v.metric === 'bw');
    assert.equal(seqread?.value, raw.jobs[1].read.bw, 'bw is fio bw as is');
    assert.equal(seqread?.unit, 'KiB/s');
    const p99 = values.find((v) => v.labels.job === 'randread' && v.metric === 'clat_p99');
    assert.equal(p99?.value, raw.jobs[3].read.clat_ns.percentile['99.000000'] / 1000);
    assert.equal(p99?.unit, 'us');
    assert.ok(
      values.every((v) => Number.isFinite(v.value) && v.value > 0),
      'values.every((v) => Number.isFinite(v.value) && v.value > 0)',
    );
  });

  it('finds the JSON after fio error lines and reports failed jobs as failures, not as zero bandwidth', () => {
    const raw = fixture('enospc-errors-before-json.json');
    assert.match(raw, /^fio: /, 'fixture starts with fio error lines');
    const { values, failures } = parseFioJson(raw);
    assert.equal(failures.length, 3);
    assert.match(failures[0] ?? '', /seqwrite failed with error 28 \(ENOSPC\)/);
    assert.ok(
      values.every((v) => v.labels.job === 'randread'),
      'only the job that ran has values',
    );
    assert.ok(
      !values.some((v) => v.value === 0 && v.metric === 'bw'),
      "!values.some((v) => v.value === 0 && v.metric === 'bw')",
    );
  });

  it('a single failed job gives no values at all', () => {
    const { values, failures } = parseFioJson(fixture('enospc-single-job.json'));
    assert.deepEqual(values, []);
    assert.equal(failures.length, 1);
  });

  it('output without JSON is a failure that quotes what fio said', () => {
    const { values, failures } = parseFioJson(fixture('no-json.txt'));
    assert.deepEqual(values, []);
    assert.match(failures[0] ?? '', /no JSON object.*not a directory/);
  });

  it('truncated JSON is a failure', () => {
    const raw = fixture('four-jobs.json');
    const { failures } = parseFioJson(raw.slice(0, raw.length / 2));
    assert.equal(failures.length, 1);
    assert.match(failures[0] ?? '', /does not parse|no JSON/);
  });

  it('extractJson ignores text after the JSON', () => {
    const { json, preamble } = extractJson('fio: warn\n{"jobs": []}\ntrailing words\n');
    assert.deepEqual(json, { jobs: [] });
    assert.equal(preamble, 'fio: warn');
  });
});
