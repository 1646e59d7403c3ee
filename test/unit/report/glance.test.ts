/**
 * Issue 37 item 1: the report opens with a matrix of setups (hosts) against
 * workloads, each cell the ratio to the baseline setup with its interval and
 * verdict — built once as data, drawn by both renderers.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { analyzeRun } from '../../../lab/analyze/analysis.ts';
import type { ComparisonRow, ScenarioAnalysis } from '../../../lab/analyze/types.ts';
import { testPair } from '../../../lab/analyze/verdict.ts';
import { type RecordedLab, loadRun } from '../../../lab/record/load.ts';
import type { Sample } from '../../../lab/record/samples.ts';
import { buildReport } from '../../../lab/report/build.ts';
import { MATRIX_VERDICTS, matrixBlock, matrixTable } from '../../../lab/report/glance.ts';
import { renderMarkdown } from '../../../lab/report/markdown.ts';
import type { Matrix } from '../../../lab/report/model.ts';
import type { MetricSpec } from '../../../lab/scenarios/metric.ts';
import { renderRun, runInMemory, writeRun } from '../run-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'layerlab-glance-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The recorded quick-shaped run (labs/quick.yaml: two hosts, seqwrite and randread on three mount kinds). */
function quickRun() {
  const runDir = join(dir, 'quick');
  writeRun(runDir, { quick: true });
  return loadRun(runDir);
}

const matrixOf = (report: ReturnType<typeof buildReport>): Matrix => {
  const block = report.sections[0]?.blocks[0];
  assert.equal(block?.kind, 'matrix', 'the first block of the report is the matrix');
  return block as Matrix;
};

/** Table cells of a Markdown row: split on '|' not escaped as '\|'. */
const cellsOf = (line: string) => line.slice(1, -1).split(/(?<!\\)\|/);

describe('the matrix of a recorded run', () => {
  const run = quickRun();
  const report = buildReport(run, analyzeRun(run));
  const matrix = matrixOf(report);

  it('one row per setup (host and profile), the baseline first', () => {
    assert.deepEqual(
      matrix.rows.map((r) => `${r.host} (${r.profile})`),
      ['xfs (overlay2-xfs)', 'dm (devicemapper-lvm)'],
    );
    assert.equal(matrix.baseline, 'xfs');
  });

  it('a column per workload (job × mount kind) in the scenario’s matrix metric only, a cell per column', () => {
    assert.deepEqual(
      matrix.columns.map((c) => `${c.scenario} ${c.metric.name} ${c.series} ${c.mount}`),
      [
        'fio bw seqwrite/write layer',
        'fio bw seqwrite/write volume',
        'fio bw seqwrite/write bind',
        'fio bw randread/read layer',
        'fio bw randread/read volume',
        'fio bw randread/read bind',
      ],
      'clat_p99 is compared too, but only bw (fio’s matrixMetric) is in the matrix',
    );
    for (const row of matrix.rows) assert.equal(row.cells.length, matrix.columns.length);
  });

  it('the baseline’s cells are its medians; the other setup’s are ratios to it with intervals and the verdict', () => {
    const [base, dm] = matrix.rows;
    assert.deepEqual(
      base?.cells.map((c) => [c.verdict, c.median, c.n]),
      [
        ['baseline', 103000, 5],
        ['baseline', 104030, 5],
        ['baseline', 103000, 5],
        ['baseline', 103000, 5],
        ['baseline', 104030, 5],
        ['baseline', 103000, 5],
      ],
    );
    assert.deepEqual(
      dm?.cells.map((c) => c.verdict),
      ['equivalent', 'equivalent', 'equivalent', 'worse', 'worse', 'worse'],
      'seqwrite as fast on both; randread at 70% on devicemapper',
    );
    const randread = dm?.cells[3];
    assert.ok(
      randread?.ratio !== undefined && Math.abs(randread.ratio - 0.7) < 0.005,
      `dm/xfs, not xfs/dm: ${randread?.ratio}`,
    );
    assert.ok(
      (randread?.lo ?? 1) < (randread?.ratio ?? 0) && (randread?.ratio ?? 1) < (randread?.hi ?? 0),
      'the interval holds the ratio',
    );
    assert.equal(randread?.detail, 'cmp-fio-profile-layer-randread-read-bw-xfs-vs-dm');
  });

  it('report.md starts with the matrix table: the title, then a header, a separator and a row per setup of equal width', () => {
    const md = renderMarkdown(report);
    const lines = md.split('\n');
    assert.equal(lines[0], '# layerlab report: quick');
    assert.equal(lines[1], '');
    const tableLines = lines.slice(2, 6);
    assert.ok(
      tableLines.every((l) => l.startsWith('|') && l.endsWith('|')),
      `the matrix table comes first: ${tableLines.join('\n')}`,
    );
    assert.equal(lines[6], '', 'a header, a separator and two rows');
    const widths = tableLines.map((l) => cellsOf(l).length);
    assert.deepEqual(widths, [7, 7, 7, 7], 'the setup column and six workloads on every line');
    assert.deepEqual(cellsOf(lines[2] as string).slice(0, 2), [' setup ', ' fio bw seqwrite/write layer ']);
    assert.match(lines[4] as string, /^\| xfs \(overlay2-xfs\) \| ◆ baseline 103000 KiB\/s \|/);
    assert.match(
      lines[5] as string,
      /^\| dm \(devicemapper-lvm\) \| = within ±10% 1\.00 \(0\.9\d–1\.0\d\) \|.* \| ▼ \*\*worse\*\* 0\.70 \(0\.6\d–0\.7\d\) \|$/,
    );
    assert.ok(
      md.indexOf('## Seed claims') > md.indexOf('| dm (devicemapper-lvm)'),
      'the seed claims follow the matrix',
    );
    assert.ok(md.indexOf('## Hosts') > md.indexOf('## Seed claims'), 'then the hosts');
    assert.ok(md.indexOf('## Run') > md.indexOf('## Hosts'), 'then the details');
  });
});

describe('a cell from the comparison of the baseline with a setup', () => {
  const metric: MetricSpec = { name: 'bw', unit: 'KiB/s', better: 'higher', description: 'bandwidth', compare: true };
  const lab: RecordedLab = {
    name: 't',
    hosts: [
      { name: 'base', profile: 'p1' },
      { name: 'other', profile: 'p2' },
    ],
    mounts: ['volume'],
    scenarioMounts: {},
    equivalent: [],
    scenarios: {},
    scenarioRepetitions: {},
  };
  const sample = (host: string, value: number): Sample => ({
    run: 'r',
    host,
    profile: host === 'base' ? 'p1' : 'p2',
    scenario: 'fio',
    mount: 'volume',
    rep: 1,
    trial: 't',
    metric: 'bw',
    value,
    unit: 'KiB/s',
    timestamp: '',
  });
  /** The matrix of one comparison row, the analysis's sides as given. */
  const cellOf = (a: string, b: string, verdict: ComparisonRow['result']['verdict']) => {
    const result = { ...testPair([1, 2, 3, 4], [2, 4, 6, 8]), verdict };
    const row: ComparisonRow = { axis: 'profile', within: 'volume', a, b, series: '', metric, result };
    const analysis: ScenarioAnalysis[] = [
      { name: 'fio', samples: [sample('base', 1), sample('other', 2)], comparisons: [row], orderEffects: [] },
    ];
    const matrix = matrixBlock(analysis, lab, () => metric) as Matrix;
    return { cell: matrix.rows[1]?.cells[0], result };
  };

  it('reads the verdict and ratio from the setup’s side, whichever side of the comparison it is', () => {
    const asB = cellOf('base', 'other', 'a-better');
    assert.equal(asB.cell?.verdict, 'worse', 'the baseline (A) better: the setup is worse');
    assert.equal(asB.cell?.ratio, 1 / (asB.result.ratio as number));
    assert.equal(asB.cell?.lo, 1 / (asB.result.hi as number));
    assert.equal(asB.cell?.hi, 1 / (asB.result.lo as number));
    assert.equal(cellOf('base', 'other', 'b-better').cell?.verdict, 'better');
    const asA = cellOf('other', 'base', 'a-better');
    assert.equal(asA.cell?.verdict, 'better', 'the setup (A) better');
    assert.equal(asA.cell?.ratio, asA.result.ratio);
  });

  it('no difference, too few runs, no ratio: the analysis’s verdicts, in its words', () => {
    assert.equal(cellOf('base', 'other', 'no-difference').cell?.verdict, 'no-difference', 'a wide interval');
    assert.equal(cellOf('base', 'other', 'not-enough-runs').cell?.verdict, 'too-few-runs');
    assert.equal(cellOf('base', 'other', 'undefined').cell?.verdict, 'no-ratio');
    assert.equal(MATRIX_VERDICTS['no-difference'].word, 'no consistent difference');
  });

  it('at three runs a side the matrix says too few runs, and report.md shows the word', async () => {
    const samples = ['base', 'other'].flatMap((host) => [1, 2, 3].map((rep) => ({ ...sample(host, 100 + rep), rep })));
    const { md } = await renderRun(runInMemory(samples, { hosts: lab.hosts, mounts: ['volume'], repetitions: 3 }));
    assert.match(md, /^\| other \(p2\) \| … too few runs 1\.00 \(0\.00–∞\) \|$/m, 'an interval this n cannot bound');
  });

  it('no matrix when no scenario has a matrix metric', () => {
    const analysis: ScenarioAnalysis[] = [
      { name: 'permissions', samples: [sample('base', 1)], comparisons: [], orderEffects: [] },
    ];
    assert.equal(
      matrixBlock(analysis, lab, () => undefined),
      undefined,
    );
  });

  it('matrixTable: the setup column, then a column per workload', () => {
    const matrix = matrixBlock(
      [{ name: 'fio', samples: [sample('base', 1), sample('other', 2)], comparisons: [], orderEffects: [] }],
      lab,
      () => metric,
    ) as Matrix;
    const t = matrixTable(matrix);
    assert.deepEqual(
      t.header.map((h) => h.map((r) => r.text).join('')),
      ['setup', 'fio bw volume'],
    );
    assert.equal(t.rows[1]?.[1]?.map((r) => r.text).join(''), '– no data', 'no comparison: no data');
  });
});
