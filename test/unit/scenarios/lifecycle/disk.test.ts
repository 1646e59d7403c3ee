/**
 * The lifecycle scenario's disk use per phase (issue 17 item 3, seed 004):
 * the columns guest.sh writes after each phase into lifecycle.tsv, checked
 * field by field by the parser (a guest is not trusted), and the disk table
 * per driver and phase in report.md and report.html.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Sample } from '../../../../lab/record/samples.ts';
import { SCENARIOS } from '../../../../lab/scenarios/index.ts';
import { bytesText } from '../../../../lab/scenarios/lifecycle/disk-report.ts';
import { humanBytes } from '../../../../lab/scenarios/lifecycle/disk.ts';
import { renderRun, runInMemory } from '../../run-fixture.ts';

const HEADER =
  'phase\tcontainers\tseconds\tdata_root_bytes\tdf_images\tdf_containers\tdf_volumes\tthin_data_percent\tthin_metadata_percent\tthin_pool_bytes';

/** lifecycle.tsv as guest.sh writes it: a start row, then each phase with the disk use after it. */
const tsv = (rows: readonly string[][]) => [HEADER, ...rows.map((r) => r.join('\t'))].join('\n');

const NO_THIN = ['-', '-', '-'];
const overlayRows = (): string[][] => [
  ['start', '0', '-', '28704768', '17.2MB', '0B', '0B', ...NO_THIN],
  ['run', '2', '14.2', '28835840', '17.2MB', '2B', '0B', ...NO_THIN],
  ['inspect', '2', '1.1', '28835840', '17.2MB', '2B', '0B', ...NO_THIN],
  ['stop', '2', '3.0', '28835840', '17.2MB', '2B', '0B', ...NO_THIN],
  ['rm', '2', '2.4', '28704768', '17.2MB', '0B', '0B', ...NO_THIN],
];
const POOL = '3875536896';
const dmRows = (): string[][] => [
  ['start', '0', '-', '1040384', '17.2MB', '0B', '0B', '1.59', '0.37', POOL],
  ['run', '2', '40.1', '1183744', '17.2MB', '2B', '0B', '2.10', '0.41', POOL],
  ['inspect', '2', '9.3', '1183744', '17.2MB', '2B', '0B', '2.10', '0.41', POOL],
  ['stop', '2', '4.9', '1183744', '17.2MB', '2B', '0B', '2.10', '0.41', POOL],
  ['rm', '2', '2.3', '1040384', '17.2MB', '0B', '0B', '1.59', '0.37', POOL],
];

const parse = (raw: string) => SCENARIOS.lifecycle.parse(raw);
const value = (values: ReturnType<typeof parse>['values'], metric: string, phase: string) =>
  values.find((v) => v.metric === metric && v.labels.phase === phase)?.value;

/**
 * lifecycle.tsv of trial r1-dm-lifecycle-none of run
 * 20261202-020717-helperd-disk-6600 (devicemapper-lvm, Docker 20.10, TCG,
 * `lifecycle: { containers: 2, churnContainers: 1 }`), as the guest wrote it.
 */
const REAL_DM = `${HEADER}\n${[
  'start\t0\t-\t585728\t111.2MB\t0B\t0B\t5.34\t10.14\t4072669184',
  'run\t2\t23.893396\t716800\t111.2MB\t0B\t0B\t6.11\t10.18\t4072669184',
  'inspect\t2\t1.965101\t716800\t111.2MB\t0B\t0B\t6.11\t10.18\t4072669184',
  'stop\t2\t2.821393\t716800\t111.2MB\t0B\t0B\t6.32\t10.18\t4072669184',
  'rm\t2\t2.324864\t593920\t111.2MB\t0B\t0B\t5.34\t10.14\t4072669184',
  'install\t1\t18.033935\t655360\t111.2MB\t19.73MB\t0B\t7.03\t10.20\t4072669184',
  'remove\t1\t12.944741\t655360\t111.2MB\t177.9kB\t0B\t7.80\t10.20\t4072669184',
].join('\n')}\n`;

describe('lifecycle.tsv disk columns: good rows', () => {
  it('the real output of a devicemapper-lvm trial: every phase, the pool held 100.2 MB more after the churn', () => {
    const { values, failures } = parse(REAL_DM);
    assert.deepEqual(failures, []);
    assert.equal(value(values, 'thin_data_percent', 'remove'), 7.8);
    assert.equal(value(values, 'df_containers_bytes', 'install'), 19_730_000);
    const held = (value(values, 'thin_data_bytes', 'remove') ?? 0) - (value(values, 'thin_data_bytes', 'start') ?? 0);
    assert.equal((held / 1e6).toFixed(1), '100.2');
  });

  it('overlay2: du and system df after every phase and at the start, seconds as before', () => {
    const { values, failures } = parse(tsv(overlayRows()));
    assert.deepEqual(failures, []);
    assert.deepEqual(
      values.filter((v) => v.metric === 'seconds').map((v) => v.labels.phase),
      ['run', 'inspect', 'stop', 'rm'],
    );
    assert.equal(value(values, 'data_root_bytes', 'start'), 28704768);
    assert.equal(value(values, 'data_root_bytes', 'run'), 28835840);
    assert.equal(value(values, 'df_images_bytes', 'run'), 17_200_000);
    assert.equal(value(values, 'df_containers_bytes', 'run'), 2);
    assert.equal(value(values, 'df_volumes_bytes', 'rm'), 0);
    assert.equal(value(values, 'thin_data_percent', 'run'), undefined, 'no thin pool on overlay2');
    assert.ok(
      values.every((v) => v.unit === (v.metric === 'seconds' ? 's' : 'B')),
      'seconds in s, every disk value in bytes',
    );
  });

  it('devicemapper: data% and metadata% of the pool, and its data bytes as size × data%', () => {
    const { values, failures } = parse(tsv(dmRows()));
    assert.deepEqual(failures, []);
    assert.equal(value(values, 'thin_data_percent', 'run'), 2.1);
    assert.equal(value(values, 'thin_metadata_percent', 'start'), 0.37);
    assert.equal(value(values, 'thin_data_bytes', 'run'), Math.round((3875536896 * 2.1) / 100));
  });

  it('a run recorded before the disk columns parses as it always did', () => {
    const old = 'phase\tcontainers\tseconds\nrun\t3\t36.8\ninspect\t3\t1.9\nstop\t3\t4.9\nrm\t3\t3.7\n';
    const { values, failures } = parse(old);
    assert.deepEqual(failures, []);
    assert.deepEqual(
      values.map((v) => v.metric),
      ['seconds', 'seconds', 'seconds', 'seconds'],
    );
  });

  it('system df sizes: powers of 1000, as go-units prints them', () => {
    assert.equal(humanBytes('0B'), 0);
    assert.equal(humanBytes('2.917kB'), 2917);
    assert.equal(humanBytes('1.634GB'), 1_634_000_000);
    assert.equal(humanBytes('999.9MB'), 999_900_000);
  });
});

describe('lifecycle.tsv disk columns: hostile rows are refused', () => {
  /** The overlay2 file with one field of one row replaced. */
  const withField = (rowIndex: number, column: string, text: string) => {
    const rows = overlayRows();
    const at = HEADER.split('\t').indexOf(column);
    (rows[rowIndex] as string[])[at] = text;
    return parse(tsv(rows));
  };
  const refused = (result: ReturnType<typeof parse>, pattern: RegExp) => {
    assert.ok(
      result.failures.some((f) => pattern.test(f)),
      `expected a failure like ${pattern}, got ${JSON.stringify(result.failures)}`,
    );
  };

  it('data root bytes: not digits, zero, negative, exponent or beyond a safe integer', () => {
    for (const bad of ['-1', '0', '1e9', '12abc', '', '99999999999999999', '1.5', ' 12'])
      refused(withField(1, 'data_root_bytes', bad), /data_root_bytes .* is not a byte count above 0/);
  });

  it('system df sizes: anything but a number and a go-units suffix', () => {
    for (const bad of ['1.5 GB', '1.5XB', 'NaN', '-', '12345MB', 'Infinity', '1e3B', '\u001b[31m1GB', '1.23456GB'])
      refused(withField(2, 'df_images', bad), /df_images .* is not a size as system df prints it/);
  });

  it('thin pool: a percent above 100, a size of 0, half the columns, or a pool on some rows only', () => {
    const rows = dmRows();
    (rows[1] as string[])[7] = '101';
    refused(parse(tsv(rows)), /thin pool "101" "0.41" "3875536896" is not data%, metadata% and bytes/);
    const zero = dmRows();
    (zero[1] as string[])[9] = '0';
    refused(parse(tsv(zero)), /is not data%, metadata% and bytes/);
    const half = dmRows();
    (half[1] as string[])[8] = '-';
    refused(parse(tsv(half)), /is not data%, metadata% and bytes/);
    const mixed = [...overlayRows().slice(0, 2), ...dmRows().slice(2)];
    refused(parse(tsv(mixed)), /a thin pool on some rows and not on others/);
  });

  it('phases: unknown, twice, the start row missing or claiming time', () => {
    refused(
      parse(tsv([...overlayRows(), ['rm; rm -rf /', '1', '1', '1', '0B', '0B', '0B', ...NO_THIN]])),
      /unknown phase "rm; rm -rf \/"/,
    );
    refused(parse(tsv([...overlayRows(), overlayRows()[1] as string[]])), /phase run twice/);
    refused(parse(tsv(overlayRows().slice(1))), /has no start row/);
    refused(withField(0, 'seconds', '3.2'), /start containers="0" seconds="3.2"/);
  });

  it('a header with some disk columns but not all', () => {
    const raw = tsv(overlayRows()).replace('\tthin_pool_bytes', '\tthin_pool');
    refused(parse(raw), /has disk columns but lacks thin_pool_bytes/);
  });

  it('guest text quoted in a failure reason is short and escaped', () => {
    const result = withField(1, 'df_containers', `\u001b]0;${'x'.repeat(500)}`);
    const reason = result.failures.join('; ');
    assert.ok(!reason.includes('\u001b'), 'no raw escape character in the reason');
    assert.ok(reason.length < 200, `short reason: ${reason.length} characters`);
  });
});

/** Samples of the trials a lab of two hosts would record, from the parser, two repetitions each. */
function samplesOf(host: string, profile: string, rows: () => string[][]): Sample[] {
  return [1, 2].flatMap((rep) =>
    parse(tsv(rows())).values.map(
      (v) =>
        ({
          run: 'r',
          host,
          profile,
          scenario: 'lifecycle',
          mount: 'none',
          rep,
          trial: `r${rep}-${host}-lifecycle-none`,
          metric: v.metric,
          value: v.value,
          unit: v.unit,
          timestamp: '',
          ...v.labels,
        }) as Sample,
    ),
  );
}

const run = (samples: Sample[]) =>
  runInMemory(samples, {
    hosts: [
      { name: 'ext4', profile: 'overlay2-ext4' },
      { name: 'dm', profile: 'devicemapper-lvm' },
    ],
    mounts: ['layer'],
    repetitions: 2,
  });

describe('the disk table per driver and phase', () => {
  it('report.md and report.html: phases down, drivers side by side, thin pool columns for devicemapper', async () => {
    const samples = [
      ...samplesOf('ext4', 'overlay2-ext4', overlayRows),
      ...samplesOf('dm', 'devicemapper-lvm', dmRows),
    ];
    const { md, html } = await renderRun(run(samples));
    const table = md.slice(md.indexOf('### disk use after each phase, per driver'));
    assert.ok(
      table.includes(
        '| phase | host (driver) | held since start | data root, du | system df: images | system df: containers | thin pool: data used | thin pool: data % | thin pool: metadata % | n |',
      ),
      'the header with the thin pool columns',
    );
    assert.ok(
      table.includes(
        '| start | ext4 (overlay2-ext4) | 0 B (0 B–0 B) | 28.70 MB (28.70 MB–28.70 MB) | 17.20 MB (17.20 MB–17.20 MB) | 0 B (0 B–0 B) | – | – | – | 2 |',
      ),
      'the ext4 start row: nothing held yet, no thin pool',
    );
    assert.ok(
      table.includes(
        '| run | dm (devicemapper-lvm) | +19.77 MB (+19.77 MB–+19.77 MB) | 1.184 MB (1.184 MB–1.184 MB) | 17.20 MB (17.20 MB–17.20 MB) | 2 B (2 B–2 B) | 81.39 MB (81.39 MB–81.39 MB) | 2.10 (2.10–2.10) | 0.41 (0.41–0.41) | 2 |',
      ),
      'the dm run row: the pool data held since start',
    );
    const phases = [...table.matchAll(/^\| (\w+) \| (ext4|dm) /gm)].map((m) => `${m[1]}/${m[2]}`);
    assert.deepEqual(phases, [
      'start/ext4',
      'start/dm',
      'run/ext4',
      'run/dm',
      'inspect/ext4',
      'inspect/dm',
      'stop/ext4',
      'stop/dm',
      'rm/ext4',
      'rm/dm',
    ]);
    assert.ok(html.includes('<h3>disk use after each phase, per driver</h3>'), 'the disk table in report.html');
    assert.ok(
      html.includes(
        '<tr><td>run</td><td>dm (devicemapper-lvm)</td><td class="num">+19.77 MB (+19.77 MB–+19.77 MB)</td>',
      ),
      'the dm run row in report.html',
    );
    // The timings table keeps its phases: no start row, no disk metric in it.
    const timings = md.slice(md.indexOf('### ext4 (overlay2-ext4)'), md.indexOf('### dm (devicemapper-lvm)'));
    assert.match(timings, /\| run \| 14\.2 \(14\.2–14\.2\) \| 2 \|/);
    assert.doesNotMatch(timings, /\| start \|/);
    // Held since start: du on overlay2 (rm gives back all but nothing here), the pool's data on devicemapper.
    assert.match(table, /\| run \| ext4 \(overlay2-ext4\) \| \+131\.1 kB /);
    assert.match(table, /\| rm \| ext4 \(overlay2-ext4\) \| 0 B /);
    assert.match(table, /\| rm \| dm \(devicemapper-lvm\) \| 0 B /);
  });

  it('without a thin pool the thin columns are left out; without disk samples there is no table', async () => {
    const { md } = await renderRun(run(samplesOf('ext4', 'overlay2-ext4', overlayRows)));
    assert.ok(
      md.includes(
        '| phase | host (driver) | held since start | data root, du | system df: images | system df: containers | n |',
      ),
      'the disk table has no thin pool columns without a pool',
    );
    const timingsOnly = samplesOf('ext4', 'overlay2-ext4', overlayRows).filter((s) => s.metric === 'seconds');
    assert.doesNotMatch((await renderRun(run(timingsOnly))).md, /disk use after each phase/);
  });

  it('bytes in powers of 1000 with four significant digits, as system df prints them', () => {
    assert.deepEqual([0, 2, 2917, 17_200_000, 123_793_408, 1_633_247_414, 1.5, -8192].map(bytesText), [
      '0 B',
      '2 B',
      '2.917 kB',
      '17.20 MB',
      '123.8 MB',
      '1.633 GB',
      '2 B',
      '-8.192 kB',
    ]);
  });
});
