/**
 * The rolling baseline across nights (lab/history/baseline.ts through
 * `layerlab compare --baseline`): a regression is flagged every night it
 * persists and clears when the numbers return; an accepted night becomes the
 * baseline; a changed environment is named, not compared silently.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, describe, it } from 'node:test';
import { compareCommand } from '../../../lab/commands/compare-runs.ts';
import { historyAcceptCommand } from '../../../lab/commands/history.ts';
import { baselineWindow } from '../../../lab/history/baseline.ts';
import type { HistoryRun } from '../../../lab/history/history.ts';
import { type Night, amiOf, resultsFolder, runId } from './nights.ts';

interface Judged {
  exitCode: number;
  baselineRuns: string[];
  regressions: number;
  environmentChanges: string[];
}

describe('nightly baselines', () => {
  let results = resultsFolder();
  beforeEach(() => {
    results.restore();
    results = resultsFolder();
  });
  after(() => results.restore());

  /** Records each night, then judges it against the history as the nightly script does. */
  async function nights(list: Night[], baseline = 'last'): Promise<Judged[]> {
    const judged: Judged[] = [];
    for (const n of list) {
      await results.record(n);
      const out = await compareCommand([runId(n.n)], { baseline, threshold: '5%', json: true });
      judged.push({ exitCode: out.exitCode, ...(JSON.parse(out.output) as Omit<Judged, 'exitCode'>) });
    }
    return judged;
  }

  it('a regression in night 2 is flagged on nights 2, 3 and 4 and clears on night 5', async () => {
    const judged = await nights([
      { n: 1 },
      { n: 2, xfsFactor: 0.8 },
      { n: 3, xfsFactor: 0.8 },
      { n: 4, xfsFactor: 0.8 },
      { n: 5 },
    ]);
    assert.deepEqual(
      judged.map((j) => j.exitCode),
      [0, 1, 1, 1, 0],
    );
    assert.deepEqual(
      judged.map((j) => j.baselineRuns),
      [[], [runId(1)], [runId(1)], [runId(1)], [runId(1)]],
      'the flagged nights are never the baseline',
    );
    assert.ok(
      judged.slice(1, 4).every((j) => j.regressions === 12),
      'every xfs headline cell, on nights 2 to 4',
    );
    assert.equal(judged[4]?.regressions, 0);
  });

  it('a rolling window of several nights skips the flagged ones too', async () => {
    const judged = await nights(
      [{ n: 1 }, { n: 2 }, { n: 3, xfsFactor: 0.8 }, { n: 4, xfsFactor: 0.8 }, { n: 5 }],
      'nights:3',
    );
    assert.deepEqual(
      judged.map((j) => j.exitCode),
      [0, 0, 1, 1, 0],
    );
    assert.deepEqual(judged[3]?.baselineRuns, [runId(2), runId(1)]);
    assert.deepEqual(judged[4]?.baselineRuns, [runId(2), runId(1)]);
  });

  it('an accepted night becomes the baseline: what it changed is flagged no more', async () => {
    const before = await nights([{ n: 1 }, { n: 2, xfsFactor: 0.8 }]);
    assert.equal(before[1]?.exitCode, 1);
    const write = process.stdout.write;
    process.stdout.write = () => true;
    try {
      assert.match(await historyAcceptCommand(runId(2)), /accepted .* as the baseline of lab nightly/);
    } finally {
      process.stdout.write = write;
    }
    const afterwards = await nights([
      { n: 3, xfsFactor: 0.8 },
      { n: 4, xfsFactor: 0.8 },
    ]);
    assert.deepEqual(
      afterwards.map((j) => [j.exitCode, j.baselineRuns]),
      [
        [0, [runId(2)]],
        [0, [runId(3)]],
      ],
    );
  });

  it('a changed kernel is named in the comparison, field by field', async () => {
    const judged = await nights([{ n: 1 }, { n: 2, kernel: '6.1.0-28-cloud-amd64' }]);
    assert.deepEqual(judged[1]?.environmentChanges, ['xfs: kernel 6.1.0-27-cloud-amd64 → 6.1.0-28-cloud-amd64']);
    await results.record({ n: 3, kernel: '6.1.0-28-cloud-amd64' });
    const md = (await compareCommand([runId(3)], { baseline: 'last', threshold: '5%' })).output;
    assert.doesNotMatch(md, /environment changed/, 'night 3 has night 2 (same kernel) as baseline');
    await results.record({ n: 4, kernel: '6.1.0-29-cloud-amd64' });
    const changed = (await compareCommand([runId(4)], { baseline: 'last', threshold: '5%' })).output;
    assert.match(changed, /\*\*The environment changed since the baseline\*\* \(1 field\(s\)\)/);
    assert.match(changed, /- xfs: kernel 6\.1\.0-28-cloud-amd64 → 6\.1\.0-29-cloud-amd64/);
  });

  it('a night on a new AMI is named as an environment change (id and name), not compared silently', async () => {
    const judged = await nights([{ n: 1 }, { n: 2, amiRelease: '20261120-1940' }]);
    const was = amiOf('20261101-1900');
    const now = amiOf('20261120-1940');
    assert.deepEqual(judged[1]?.environmentChanges, [
      `xfs: ami ${was.ami} → ${now.ami}`,
      `xfs: amiName ${was.amiName} → ${now.amiName}`,
    ]);
    const md = (await compareCommand([runId(2)], { baseline: 'last', threshold: '5%' })).output;
    assert.match(md, /\*\*The environment changed since the baseline\*\* \(2 field\(s\)\)/);
    assert.match(md, /- xfs: amiName debian-12-amd64-20261101-1900 → debian-12-amd64-20261120-1940/);
  });
});

describe('baselineWindow', () => {
  const run = (n: number, extra: Partial<HistoryRun> = {}) =>
    ({ run_id: runId(n), regressed: 0, accepted_at: null, ...extra }) as HistoryRun;

  it('newest first, without flagged runs, back to the newest accepted one', () => {
    const ids = (runs: HistoryRun[]) => baselineWindow(runs).map((r) => r.run_id);
    assert.deepEqual(ids([run(3), run(2, { regressed: 1 }), run(1)]), [runId(3), runId(1)]);
    assert.deepEqual(ids([run(4), run(3, { regressed: 1, accepted_at: 't' }), run(2), run(1)]), [runId(4), runId(3)]);
    assert.deepEqual(ids([run(2, { regressed: null }), run(1)]), [runId(2), runId(1)], 'not judged is not flagged');
  });
});
