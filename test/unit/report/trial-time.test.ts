/** The run's "where the trial time went": a stacked bar in report.html, a table in both reports. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { type ScenarioTime, TIME_PARTS } from '../../../lab/analyze/trial-time.ts';
import { loadRun } from '../../../lab/record/load.ts';
import { renderHtml } from '../../../lab/report/html.ts';
import { renderMarkdown } from '../../../lab/report/markdown.ts';
import type { Section } from '../../../lab/report/model.ts';
import { trialTimeSection, trialTimeSpec } from '../../../lab/report/trial-time.ts';
import { renderRun, writeRun } from '../run-fixture.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-trial-time-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** Two fio trials of 14 s: 6 s timed, 2 s tool overhead, 6 s outside the guest. */
const FIO: ScenarioTime = {
  scenario: 'fio',
  trials: 2,
  unitemised: 0,
  wallSeconds: 28,
  parts: { timed: 12, tool: 4, start: 3, storage: 0.6, after: 1.9, harness: 0.5, outside: 6 },
  ratio: 28 / 12,
};

const report = (section: Section | undefined) => {
  assert.ok(section, 'a section');
  return { title: 't', sections: [section] };
};

describe('trialTimeSection', () => {
  it('report.md: a table per scenario, seconds per trial with their share, and wall / timed work', () => {
    const md = renderMarkdown(report(trialTimeSection([FIO])));
    assert.match(md, /^### Where the trial time went$/m);
    assert.match(
      md,
      /^\| scenario \| trials \| wall \| timed work \| tool overhead \| container start \| mount and preparation \| output and cleanup \| harness in the guest \| controller and SSH \| wall \/ timed work \|$/m,
    );
    assert.match(
      md,
      /^\| fio \| 2 \| 14\.0 s \| 6\.00 s \(43%\) \| 2\.00 s \(14%\) \| 1\.50 s \(11%\) \| 0\.30 s \(2%\) \| 0\.95 s \(7%\) \| 0\.25 s \(2%\) \| 3\.00 s \(21%\) \| 2\.33× \|$/m,
    );
    assert.ok(!md.includes('<svg'), 'no figure in report.md');
  });

  it('report.html: the stacked bar as SVG, labelled, beside the same table', async () => {
    const html = await renderHtml(report(trialTimeSection([FIO])));
    assert.match(html, /<h3>Where the trial time went<\/h3>/);
    assert.match(html, /<figure><figcaption>Where the trial wall time went, per scenario/);
    const svg = html.slice(html.indexOf('<svg'), html.indexOf('</svg>'));
    assert.ok(svg.length > 0, 'an inline SVG');
    for (const part of TIME_PARTS) assert.ok(svg.includes(part.label), `the legend names ${part.label}`);
    assert.ok(svg.includes('fio (wall 2.33× timed work)'), 'the ratio beside the scenario');
    assert.ok(
      svg.includes('aria-label="fio (wall 2.33× timed work): timed work, 6.00 s a trial (43% of the wall)"'),
      'each segment described for a screen reader',
    );
    assert.match(html, /<td class="num">2\.33×<\/td>/, 'the table, too');
  });

  it('readable in grey-scale: every part a distinct grey, darkest first, each segment outlined', () => {
    const spec = trialTimeSpec([FIO]) as unknown as {
      mark: { stroke: string };
      encoding: { color: { scale: { range: string[] } } };
    };
    const greys = spec.encoding.color.scale.range;
    assert.equal(greys.length, TIME_PARTS.length);
    const level = (hex: string) => {
      const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
      assert.ok(r === g && g === b, `${hex} is a grey`);
      return r as number;
    };
    const levels = greys.map(level);
    assert.deepEqual(
      levels,
      [...levels].sort((a, b) => a - b),
      'dark to light',
    );
    assert.ok(
      levels.every((l, i) => i === 0 || l - (levels[i - 1] as number) >= 24),
      `neighbours far apart: ${levels.join(' ')}`,
    );
    assert.ok(spec.mark.stroke, 'segments outlined (the lightest is not lost on white)');
  });

  it('a scenario name from the plan (any text in a hand-made run) is text in both reports, never markup', async () => {
    const hostile = { ...FIO, scenario: '<img src=x onerror=alert(1)>|**x**\x1b[2J' };
    const section = trialTimeSection([hostile]);
    const md = renderMarkdown(report(section));
    assert.ok(md.includes('\\<img src=x onerror=alert(1)\\>\\|\\*\\*x\\*\\*\\\\x1b\\[2J'), md);
    const html = await renderHtml(report(section));
    assert.ok(!html.includes('<img'), 'no element from the name');
    assert.ok(!html.includes('\x1b'), 'no raw escape');
    assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;|**x**\\x1b[2J'), 'shown as text in the table');
  });

  it('no section when no trial has phases; trials without them are counted, with why', () => {
    assert.equal(trialTimeSection([]), undefined);
    assert.equal(trialTimeSection([{ ...FIO, trials: 0, unitemised: 3, wallSeconds: 0 }]), undefined);
    const md = renderMarkdown(
      report(trialTimeSection([{ ...FIO, unitemised: 1, dropped: 'phases: line 1: "x" is not "<phase> <seconds>"' }])),
    );
    assert.match(
      md,
      /^1 done trial\(s\) are not itemised: their guest kept no phases or they were dropped \(first: phases: line 1: "x" is not "\\<phase\\> \\<seconds\\>"\)\.$/m,
    );
  });

  it('nothing timed: the ratio is a dash', () => {
    const md = renderMarkdown(report(trialTimeSection([{ ...FIO, ratio: undefined }])));
    assert.match(md, /\| – \|$/m);
  });
});

describe("the report's run section", () => {
  it('shows where the trial time went right after the run, for a run with phases', async () => {
    const dir = join(work, 'phased');
    writeRun(dir, { quick: true, phases: true, repetitions: 2 });
    const { md, html } = await renderRun(loadRun(dir));
    const run = md.indexOf('\n## Run\n');
    const time = md.indexOf('\n### Where the trial time went\n');
    assert.ok(run > 0 && time > run, 'a subsection of the run section');
    assert.ok(md.indexOf('\n## ', run + 1) > time, 'before the next section');
    assert.match(md, /^\| fio \| 11 \| 14\.0 s \| 6\.00 s \(43%\) \| 2\.00 s \(14%\) .* \| 2\.33× \|$/m);
    assert.match(html, /<h3>Where the trial time went<\/h3>\n<p>[\s\S]*?<figure>[\s\S]*?<svg/);
  });

  it('a run recorded before phases re-reports as before: no such section', async () => {
    const dir = join(work, 'before');
    writeRun(dir, { quick: true, repetitions: 2 });
    const { md } = await renderRun(loadRun(dir));
    assert.ok(!md.includes('Where the trial time went'), 'no section');
    assert.match(md, /^## Run$/m);
  });
});
