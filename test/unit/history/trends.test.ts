/**
 * Issue 37 item 2: the trend model of the history (`layerlab history plot`).
 * Three recorded nights (nights.ts): the second 20% slower on host xfs and
 * flagged by the real nightly comparison, the third back to normal on a new
 * kernel of host xfs. One panel per headline cell, a marker where the cell
 * regressed, the kernel change annotated on xfs's panels only.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { compareCommand } from '../../../lab/commands/compare-runs.ts';
import { UserError } from '../../../lab/errors.ts';
import { History } from '../../../lab/history/history.ts';
import { sqlite } from '../../../lab/history/sqlite-file.ts';
import { buildTrends } from '../../../lab/history/trends.ts';
import { trendCsv, trendJson } from '../../../lab/report/trend-model.ts';
import { NEW_KERNEL, resultsFolder, runId, threeNights } from './nights.ts';

describe('the trend model of three nights', () => {
  let folder: ReturnType<typeof resultsFolder>;
  let history: History;
  before(async () => {
    folder = resultsFolder();
    await threeNights(folder);
    history = await History.forResults(folder.path);
  });
  after(() => {
    history.close();
    folder.restore();
  });

  it('one panel per headline cell, each with a point per night', () => {
    const [lab, ...others] = buildTrends(history).labs;
    assert.equal(others.length, 0);
    assert.equal(lab?.lab, 'nightly');
    assert.deepEqual(
      lab?.nights.map((n) => [n.run, n.label, n.flagged]),
      [
        [runId(1), '2026-12-01 02:00Z', false],
        [runId(2), '2026-12-02 02:00Z', true],
        [runId(3), '2026-12-03 02:00Z', false],
      ],
    );
    // 2 hosts x 3 mounts x 2 jobs x (bw, clat_p99).
    assert.equal(lab?.panels.length, 24);
    assert.equal(new Set(lab?.panels.map((p) => p.cell)).size, 24, 'one panel per cell');
    const panel = lab?.panels.find((p) => p.cell === 'fio/xfs/volume/seqwrite/write/bw');
    assert.deepEqual(
      panel?.points.map((p) => [p.night, p.n, p.level]),
      [
        [0, 5, 0.9375],
        [1, 5, 0.9375],
        [2, 5, 0.9375],
      ],
      'five repetitions: min–max, 93.75% coverage',
    );
    const [one, two] = panel?.points ?? [];
    assert.ok(
      one && two && two.median / one.median < 0.85,
      `the regressed night is 20% lower: ${one?.median} → ${two?.median}`,
    );
    assert.ok(
      panel?.points.every((p) => p.lo <= p.median && p.median <= p.hi),
      'each median within its interval',
    );
  });

  it('marks the regression on the cells the comparison flagged, and only there', () => {
    const lab = buildTrends(history).labs[0];
    const marked = lab?.panels.filter((p) => p.points.some((q) => q.regressed === true)).map((p) => p.cell) ?? [];
    assert.equal(marked.length, 12, `every headline cell of xfs: ${marked}`);
    assert.ok(
      marked.every((c) => c.startsWith('fio/xfs/')),
      'only xfs regressed',
    );
    assert.ok(
      lab?.panels.every((p) => p.points.every((q) => (q.night === 1 ? q.regressed !== null : q.regressed === false))),
      'nights not flagged mark nothing; the flagged one says which cells',
    );
  });

  it('annotates the kernel change on the night it happened, on xfs’s panels only', () => {
    const lab = buildTrends(history).labs[0];
    for (const p of lab?.panels ?? []) {
      const expected =
        p.host === 'xfs' ? [{ night: 2, changes: [`xfs: kernel 6.1.0-27-cloud-amd64 → ${NEW_KERNEL}`] }] : [];
      assert.deepEqual(p.envChanges, expected, p.cell);
    }
    assert.deepEqual(
      lab?.nights.map((n) => n.changes),
      [[], [], []],
      'target, hosts and parameters unchanged',
    );
  });

  it('filters by lab, cell and the last N nights', () => {
    const last2 = buildTrends(history, { last: 2 }).labs[0];
    assert.deepEqual(
      last2?.nights.map((n) => n.run),
      [runId(2), runId(3)],
    );
    const cells = buildTrends(history, { lab: 'nightly', cells: ['xfs/volume', 'dm/bind/randread/read/bw'] }).labs[0];
    assert.deepEqual(
      cells?.panels.map((p) => p.cell),
      [
        'fio/dm/bind/randread/read/bw',
        'fio/xfs/volume/randread/read/bw',
        'fio/xfs/volume/randread/read/clat_p99',
        'fio/xfs/volume/seqwrite/write/bw',
        'fio/xfs/volume/seqwrite/write/clat_p99',
      ],
    );
  });

  it('nothing to draw is bad input that says what to do', () => {
    const refuses = (opts: Parameters<typeof buildTrends>[1], message: RegExp) =>
      assert.throws(
        () => buildTrends(history, opts),
        (err: unknown) => err instanceof UserError && message.test(err.message),
      );
    refuses({ lab: 'other' }, /no runs of lab other with samples in .*history\.sqlite: nothing to plot/);
    refuses({ cells: ['nope'] }, /no cell of any lab .* matches --cell "nope".*fio\/xfs\/volume/);
  });

  it('writes the same numbers as CSV (one row per panel and night) and JSON', () => {
    const model = buildTrends(history);
    const csv = trendCsv(model).trimEnd().split('\n');
    assert.equal(csv.length, 1 + 24 * 3);
    assert.match(csv[0] as string, /^lab,cell,scenario,host,profile,mount,series,metric,unit,better,run,/);
    const regressedRow = csv.find(
      (l) => l.startsWith('nightly,fio/xfs/volume/seqwrite/write/bw,') && l.includes(runId(2)),
    );
    assert.match(regressedRow ?? '', /,0\.9375,1,1,,1,$/, 'level, flagged, regressed, accepted_at, complete, changes');
    const changedRow = csv.find((l) => l.startsWith('nightly,fio/xfs/layer/randread/read/bw,') && l.includes(runId(3)));
    assert.match(changedRow ?? '', /,xfs: kernel 6\.1\.0-27-cloud-amd64 → 6\.1\.0-28-cloud-amd64$/);
    const json = JSON.parse(trendJson(model));
    assert.equal(json.labs[0].panels.length, 24);
    assert.equal(json.labs[0].panels[0].points.length, 3);
  });

  it('a night judged before history version 4 is flagged without saying which cells', async () => {
    // As a version-3 layerlab judged it (another process: the open history re-reads the file).
    const path = join(folder.path, 'history.sqlite');
    const db = new (await sqlite()).Database(readFileSync(path));
    db.run('UPDATE runs SET regressed_cells = NULL WHERE run_id = ?', [runId(2)]);
    writeFileSync(path, db.export());
    db.close();
    try {
      const lab = buildTrends(history).labs[0];
      assert.ok(
        lab?.panels.every((p) => p.points[1]?.regressed === null),
        'unknown on every panel',
      );
    } finally {
      await compareCommand([runId(2)], { baseline: 'last', threshold: '5%' });
    }
  });
});

describe('an empty history', () => {
  it('has nothing to plot', async () => {
    const folder = resultsFolder();
    const h = await History.forResults(folder.path);
    try {
      assert.throws(
        () => buildTrends(h),
        (err: unknown) =>
          err instanceof UserError && /no runs with samples in .*`layerlab report <run>`/.test(err.message),
      );
    } finally {
      h.close();
      rmSync(join(folder.path, 'history.sqlite'), { force: true });
      folder.restore();
    }
  });
});
