/**
 * Issue 37 item 3: the report tests what the shuffled order is for — per
 * cell, whether the value drifts with its trial's position in the run — and
 * says so when a run drifted.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { analyzeRun } from '../../../lab/analyze/analysis.ts';
import { loadRun } from '../../../lab/record/load.ts';
import type { Sample } from '../../../lab/record/samples.ts';
import { buildReport } from '../../../lab/report/build.ts';
import { renderHtml } from '../../../lab/report/html.ts';
import { renderMarkdown } from '../../../lab/report/markdown.ts';
import { orderEffectsSection } from '../../../lab/report/order-effects.ts';
import { type InjectedDrift, renderRun, runInMemory, writeRun } from '../run-fixture.ts';

const root = mkdtempSync(join(tmpdir(), 'layerlab-order-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** A recorded run of `repetitions` (the fixture's 2 hosts × 2 mounts, fio), its analysis and report.md. */
function recorded(name: string, repetitions: number, drift?: InjectedDrift) {
  const dir = join(root, name);
  writeRun(dir, { repetitions, drift });
  const run = loadRun(dir);
  const analysis = analyzeRun(run);
  return { run, analysis, md: renderMarkdown(buildReport(run, analysis)) };
}

/** The report.md section on order effects, up to the next section. */
const section = (md: string) =>
  md.slice(md.indexOf('## Order effects'), md.indexOf('\n## ', md.indexOf('## Order effects')));

const DRIFT: InjectedDrift = { host: 'dm', mount: 'volume', perTrial: 0.05 };

describe('order effects in a recorded run', () => {
  it('a drift injected into one cell (values rising with trial position) is flagged, nothing else', () => {
    const { analysis, md } = recorded('drift', 6, DRIFT);
    const cells = analysis.flatMap((s) => s.orderEffects);
    assert.equal(cells.length, 8, '2 hosts × 2 mounts × fio bw and clat_p99');
    const drifting = cells.filter((c) => c.verdict === 'drift');
    assert.deepEqual(
      drifting.map((c) => [c.host, c.mount, c.metric.name, c.tau]),
      [
        ['dm', 'volume', 'bw', 1],
        ['dm', 'volume', 'clat_p99', -1],
      ],
    );
    // 6 trials in perfect order: p = 2/6! = 0.0028; the two among 8 cells: q = 0.0028 × 8/2 = 0.011.
    assert.ok(Math.abs((drifting[0]?.q ?? 1) - (2 / 720) * 4) < 1e-9, `q ${drifting[0]?.q}`);
    assert.ok(
      cells.every((c) => c.order === 'journal' && c.trials === 6),
      'positions from the journal, one per trial',
    );
    const text = section(md);
    assert.match(text, /\*\*Drift in 2 of 8 tested cells\*\*/);
    assert.match(
      text,
      /- fio bw of randread\/read on host dm, mount volume: \*\*rising\*\* over the run — getting better \(τ 1\.00, p 0\.003, q 0\.011, 6 trials\)/,
    );
    assert.match(
      text,
      /clat_p99 of randread\/read on host dm, mount volume: \*\*falling\*\* over the run — getting better/,
    );
    assert.match(text, /warming up: the page cache/, 'a hint at the causes');
    assert.doesNotMatch(text, /host xfs/, 'the cells without a drift are not named');
  });

  it('the same run without the drift is not flagged', () => {
    const { analysis, md } = recorded('steady', 6);
    assert.ok(
      analysis.flatMap((s) => s.orderEffects).every((c) => c.verdict === 'no-drift'),
      'every cell tested, none drifting',
    );
    assert.match(section(md), /No drift: none of the 8 tested cells moved consistently/);
    assert.doesNotMatch(section(md), /Drift in|warming up/);
  });

  it('values falling over the run get the causes of getting worse', () => {
    const { md } = recorded('falling', 6, { ...DRIFT, perTrial: -0.03 });
    assert.match(
      section(md),
      /bw of randread\/read on host dm, mount volume: \*\*falling\*\* over the run — getting worse/,
    );
    assert.match(
      section(md),
      /a filling disk or thin pool, a host heating into thermal throttling, a cloud volume's burst balance/,
    );
  });

  it('too few trials to test say so, instead of "no drift"', () => {
    const { md } = recorded('short', 3, DRIFT);
    assert.match(
      section(md),
      /No cell has the 5 trials a drift check needs \(4 trials in perfect order reach p 0\.083 at best\): this run cannot tell whether its values drifted\./,
    );
    assert.doesNotMatch(section(md), /No drift/);
  });

  it('report.html shows the same section (the renderers need nothing new)', async () => {
    const { run } = recorded('html', 6, DRIFT);
    const html = await renderHtml(buildReport(run, analyzeRun(run)));
    assert.match(html, /<h2>Order effects<\/h2>/);
    assert.match(html, /<strong>Drift in 2 of 8 tested cells<\/strong>/);
  });
});

describe('order effects of a run without a journal', () => {
  const sample = (host: string, rep: number, value: number): Sample => ({
    run: 'r',
    host,
    profile: 'overlay2-xfs',
    scenario: 'db-import',
    mount: 'volume',
    rep,
    trial: `r${rep}-${host}-db-import-volume`,
    metric: 'seconds',
    value,
    unit: 's',
    timestamp: 't',
  });

  it('falls back on the repetition number, says so, and counts the cells too short to test', async () => {
    // Host a: 6 repetitions, seconds rising; host b: 3 repetitions only.
    const samples = [
      ...[1, 2, 3, 4, 5, 6].map((rep) => sample('a', rep, 10 + rep)),
      ...[1, 2, 3].map((rep) => sample('b', rep, 10)),
    ];
    const run = runInMemory(samples, {
      hosts: [
        { name: 'a', profile: 'overlay2-xfs' },
        { name: 'b', profile: 'overlay2-xfs' },
      ],
      mounts: ['volume'],
      repetitions: 6,
    });
    const text = section((await renderRun(run)).md);
    assert.match(text, /\*\*Drift in 1 of 1 tested cells\*\*/);
    assert.match(
      text,
      /db-import seconds on host a, mount volume: \*\*rising\*\* over the run — getting worse \(τ 1\.00/,
    );
    assert.match(text, /1 of 2 cells have fewer than 5 trials, too few to show a drift/);
    assert.match(text, /For 2 cells the journal lacks a trial: their order is the repetition number/);
  });

  it('no section when nothing is compared', () => {
    assert.equal(orderEffectsSection([]), undefined);
  });
});
