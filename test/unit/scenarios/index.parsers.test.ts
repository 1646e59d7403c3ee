/**
 * The parsers of every scenario but fio (fio-parse.test.ts), on raw files that
 * the real tools wrote on a lab VM (test/fixtures/<scenario>/README.md says
 * how each was made).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SCENARIOS } from '../../../lab/scenarios/index.ts';
import { PERMISSION_CASES } from '../../../lab/scenarios/permissions/cases.ts';
import type { MeasuredValue } from '../../../lab/scenarios/types.ts';

const fixture = (scenario: string, name: string) =>
  readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', scenario, name), 'utf8');
const value = (values: MeasuredValue[], metric: string, labels: Record<string, string> = {}) =>
  values.find((v) => v.metric === metric && Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value;

describe('scenario parsers on real outputs', () => {
  it('dbench: the final table per operation and the throughput line (MB/s, ms)', () => {
    const raw = fixture('dbench', 'two-clients.txt');
    const { values, failures } = SCENARIOS.dbench.parse(raw);
    assert.deepEqual(failures, []);
    const line = /^Throughput ([\d.]+) MB\/sec\s+2 clients\s+2 procs\s+max_latency=([\d.]+) ms$/m.exec(raw);
    assert.ok(line, 'the fixture has its throughput line');
    assert.equal(value(values, 'throughput'), Number(line[1]));
    assert.equal(value(values, 'max_latency'), Number(line[2]));
    assert.equal(value(values, 'clients'), 2);
    const ntcreate = /^ NTCreateX\s+(\d+)\s+([\d.]+)\s+([\d.]+)$/m.exec(raw);
    assert.ok(ntcreate, 'the fixture has an NTCreateX row');
    assert.equal(value(values, 'op_count', { op: 'NTCreateX' }), Number(ntcreate[1]));
    assert.equal(value(values, 'op_avg_latency', { op: 'NTCreateX' }), Number(ntcreate[2]));
    assert.equal(value(values, 'op_max_latency', { op: 'NTCreateX' }), Number(ntcreate[3]));
    const ops = new Set(values.filter((v) => v.metric === 'op_count').map((v) => v.labels.op));
    assert.ok(ops.size >= 10 && ops.has('Flush') && ops.has('ReadX'), `operations: ${[...ops].join(' ')}`);
  });

  it('dbench: a run that was killed before its final table is a failure', () => {
    const { values, failures } = SCENARIOS.dbench.parse(fixture('dbench', 'killed.txt'));
    assert.deepEqual(values, []);
    assert.match(failures[0] ?? '', /no final operation table in dbench output/);
  });

  it('db-import: import seconds, rows per second, and every table counted in full', () => {
    const { values, failures } = SCENARIOS['db-import'].parse(fixture('db-import', 'imported.tsv'));
    assert.deepEqual(failures, []);
    const seconds = value(values, 'seconds') ?? 0;
    assert.ok(seconds > 0, 'seconds > 0');
    const [, page, revision, text] =
      /page=(\d+)\/\d+,revision=(\d+)\/\d+,text=(\d+)\/\d+/.exec(fixture('db-import', 'imported.tsv')) ?? [];
    assert.equal(value(values, 'rows_per_second'), (Number(page) + Number(revision) + Number(text)) / seconds);
  });

  it('db-import: an import whose tables were not all counted fails (a bug this fixture caught)', () => {
    const { failures } = SCENARIOS['db-import'].parse(fixture('db-import', 'rows-uncounted.tsv'));
    assert.deepEqual(failures, ['no row count for table revision', 'no row count for table text']);
  });

  it('db-import: a short table is a failure, not a fast import', () => {
    const short = fixture('db-import', 'imported.tsv').replace(
      /revision=(\d+)\//,
      (_, n) => `revision=${Number(n) - 1}/`,
    );
    const { failures } = SCENARIOS['db-import'].parse(short);
    assert.match(failures[0] ?? '', /table revision has \d+ rows after the import, the dump has \d+/);
  });

  it('lifecycle: seconds per phase, churn included', () => {
    const { values, failures } = SCENARIOS.lifecycle.parse(fixture('lifecycle', 'three-containers-churn.tsv'));
    assert.deepEqual(failures, []);
    assert.deepEqual(
      values.map((v) => v.labels.phase),
      ['run', 'inspect', 'stop', 'rm', 'install', 'remove'],
    );
    assert.ok(
      values.every((v) => v.metric === 'seconds' && v.value > 0),
      'seconds > 0 everywhere',
    );
  });

  it('lifecycle: a trial cut off after docker run lacks phases and fails', () => {
    const cut = fixture('lifecycle', 'three-containers-churn.tsv').split('\n').slice(0, 2).join('\n');
    assert.deepEqual(SCENARIOS.lifecycle.parse(cut).failures, [
      'lifecycle.tsv has no inspect phase',
      'lifecycle.tsv has no stop phase',
      'lifecycle.tsv has no rm phase',
    ]);
  });

  it('permissions: the seven cases with owner, mode and error text as labels', () => {
    const { values, failures } = SCENARIOS.permissions.parse(fixture('permissions', 'seven-cases.tsv'));
    assert.deepEqual(failures, []);
    const wrote = values.filter((v) => v.metric === 'wrote');
    assert.deepEqual(
      wrote.map((v) => v.labels.case),
      PERMISSION_CASES.map((c) => c.name),
    );
    const denied = wrote.find((v) => v.labels.case === 'host-user-dir');
    assert.equal(denied?.value, 0);
    assert.equal(denied?.labels.outside, '1000:1000 775');
    assert.match(denied?.labels.error ?? '', /Permission denied/);
    assert.equal(value(values, 'exit_status', { case: 'chown-fix' }), 0);
  });

  it('permissions: a row whose exit status and written file disagree is a broken probe', () => {
    const raw = fixture('permissions', 'seven-cases.tsv').replace(/^(chown-fix\t[^\t]+\t)0\t1/m, '$12\t1');
    assert.deepEqual(SCENARIOS.permissions.parse(raw).failures, [
      'permissions.tsv: case chown-fix exited 2 but wrote=1',
    ]);
  });

  it('lifetime: survived per phase and place', () => {
    const { values, failures } = SCENARIOS.lifetime.parse(fixture('lifetime', 'lifetime.tsv'));
    assert.deepEqual(failures, []);
    assert.equal(values.length, 9);
    assert.equal(value(values, 'survived', { phase: 'recreate', place: 'layer' }), 0);
    assert.equal(value(values, 'survived', { phase: 'recreate', place: 'volume' }), 1);
  });

  it('backup: seconds, bytes and files per method; a short archive listing fails', () => {
    const raw = fixture('backup', 'backup.tsv');
    const { values, failures } = SCENARIOS.backup.parse(raw);
    assert.deepEqual(failures, []);
    assert.deepEqual(
      values.filter((v) => v.metric === 'files').map((v) => [v.labels.method, v.value]),
      [
        ['host-bind', 220],
        ['host-volume', 220],
        ['helper-container', 220],
      ],
    );
    const short = raw.replace(/^(host-volume(?:\t[^\t]+){3})\t220/m, '$1\t219');
    assert.deepEqual(SCENARIOS.backup.parse(short).failures, [
      'host-volume: the archive lists 219 files, the dataset has 220',
    ]);
  });

  it('every scenario refuses an empty raw file', () => {
    for (const scenario of Object.values(SCENARIOS)) {
      assert.ok(scenario.parse('').failures.length > 0, `${scenario.name} fails on empty output`);
    }
  });
});
