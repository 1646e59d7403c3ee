/** Issue 37 item 1: the forest plot shows what the matrix cannot, grouped by workload. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { analyzeRun } from '../../../lab/analyze/analysis.ts';
import { loadRun } from '../../../lab/record/load.ts';
import { scenarioFigures } from '../../../lab/report/figures.ts';
import { SCENARIOS } from '../../../lab/scenarios/index.ts';
import { writeRun } from '../run-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'layerlab-figures-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The forest plot's row labels, or its caption when there is none. */
function forestOf(figures: ReturnType<typeof scenarioFigures>): { labels?: string[]; caption: string } {
  const forest = figures.at(-1);
  const caption = forest?.caption.map((r) => r.text).join('') ?? '';
  const spec = forest?.spec as { data?: { values: { label: string }[] } } | undefined;
  return { labels: spec?.data?.values.map((v) => v.label), caption };
}

describe('the forest plot', () => {
  writeRun(join(dir, 'quick'), { quick: true });
  const run = loadRun(join(dir, 'quick'));
  const [fio] = analyzeRun(run);
  if (!fio) throw new Error('the fixture has fio');

  it('leaves out the comparisons the matrix shows (the baseline against a setup in bw), grouped by workload', () => {
    const { labels = [] } = forestOf(scenarioFigures(SCENARIOS.fio, fio, ['layer', 'volume', 'bind'], 'xfs'));
    assert.equal(labels.filter((l) => / bw: xfs \/ dm/.test(l)).length, 0, 'the matrix’s comparisons are not repeated');
    assert.equal(labels.filter((l) => / clat_p99: xfs \/ dm/.test(l)).length, 6, 'the other metric’s are');
    assert.equal(labels.length, 30, 'bw and clat_p99 mount pairs on both hosts (24), clat_p99 host pairs (6)');
    const workloads = labels.map((l) => l.split(':')[0]);
    const runs = workloads.filter((w, i) => w !== workloads[i - 1]);
    assert.deepEqual(runs, [
      'seqwrite/write bw',
      'seqwrite/write clat_p99',
      'randread/read bw',
      'randread/read clat_p99',
    ]);
  });

  it('without a baseline (or a matrix metric) every comparison is in it', () => {
    const { labels = [] } = forestOf(scenarioFigures(SCENARIOS.fio, fio, ['layer', 'volume', 'bind']));
    assert.equal(labels.length, 36);
  });

  it('says so when the matrix shows every comparison', () => {
    const onlyMatrix = {
      ...fio,
      comparisons: fio.comparisons.filter((r) => r.axis === 'profile' && r.metric.name === 'bw'),
    };
    const { labels, caption } = forestOf(scenarioFigures(SCENARIOS.fio, onlyMatrix, ['layer'], 'xfs'));
    assert.equal(labels, undefined);
    assert.equal(caption, 'No forest plot: the matrix shows every comparison with enough runs.');
  });
});
