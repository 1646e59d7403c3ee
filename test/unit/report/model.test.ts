import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { analyzeRun } from '../../../lab/analyze/analysis.ts';
import { loadRun } from '../../../lab/record/load.ts';
import { buildReport } from '../../../lab/report/build.ts';
import { renderHtml } from '../../../lab/report/html.ts';
import { renderMarkdown } from '../../../lab/report/markdown.ts';
import { NO_CELL, type Report, inline, paragraph, plain, prose, table } from '../../../lab/report/model.ts';
import { dotsSpec } from '../../../lab/report/plots.ts';
import { findOnPath, needs } from '../installed.ts';
import { writeRun } from '../run-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'layerlab-report-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('report.md', () => {
  writeRun(dir);
  const md = renderMarkdown(buildReport(loadRun(dir), analyzeRun(loadRun(dir))));

  it('has a table per host with median (min–max) and n per job and mount', () => {
    assert.match(md, /### xfs \(overlay2-xfs\)/);
    assert.match(
      md,
      /\| randread \| layer \| 103000 \(101000–105000\) \| 25750 \(25250–26250\) \| 9709 \(9524–9901\) \| 5 \|/,
    );
  });

  it('compares profiles and mounts with intervals and honest verdicts', () => {
    assert.match(
      md,
      /\| mount layer \| randread\/read \| bw \(higher is better\) \| xfs vs dm \| 5\/5 \| xfs is 4\d% higher — better \(ratio 1\.43, CI 1\.39–1\.47, p 0\.008, q 0\.016\)/,
    );
    assert.match(
      md,
      /\| host xfs \| randread\/read \| bw \(higher is better\) \| layer vs volume \| 5\/5 \| no consistent difference/,
    );
    assert.match(
      md,
      /\| mount layer \| randread\/read \| clat_p99 \(lower is better\) \| xfs vs dm \| 5\/5 \| xfs is 3\d% lower — better/,
    );
  });

  it('summarizes load and steal per host and flags busy trials', () => {
    assert.match(md, /\| xfs \| 10 \| 0\.50 \(3\.00\) \| 0\.00 \(0\.00\) \| r1-xfs-fio-layer, r1-xfs-fio-volume \|/);
    assert.match(md, /\| dm \| 10 \| 0\.50 \(0\.50\) \| 5\.00 \(0\.50\) \| none \|/);
  });

  it('lists failed trials and the hosts', () => {
    assert.match(md, /\| r1-dm-fio-bind \| dm \| fio job seqwrite failed with error 28 \(ENOSPC\) \|/);
    assert.match(md, /^\| fact \| xfs \(overlay2-xfs\) \| dm \(devicemapper-lvm\) \|$/m);
    assert.match(md, /^\| summary \| \| not recorded \|$/m);
    assert.match(md, /^\| kernel \| 6\.1\.0-x-cloud-amd64 \| \|$/m);
    assert.match(md, /^\| storage driver \| overlay2 on xfs \| \|$/m);
    assert.match(md, /^\| data disk \| \/dev\/vdb 4\.0 GiB \| \|$/m);
    assert.match(md, /^\| load at start \| 0\.10 0\.20 0\.30 \| \|$/m);
  });
});

describe('guest text in table cells', () => {
  it("an unreadable env summary whose parser message holds a '|' is escaped once in report.md, shown as it is in report.html", async () => {
    const pipeDir = join(dir, 'pipe');
    writeRun(pipeDir);
    writeFileSync(join(pipeDir, 'hosts', 'xfs', 'env', 'summary.json'), '{"kernel": |}');
    const run = loadRun(pipeDir);
    const model = buildReport(run, analyzeRun(run));
    const md = renderMarkdown(model);
    assert.match(
      md,
      /^\| summary \| unreadable: hosts\/xfs\/env\/summary\.json: Unexpected token '\\\|'.* \| not recorded \|$/m,
    );
    assert.doesNotMatch(md, /\\\\\|/, 'not escaped twice');
    assert.match(
      await renderHtml(model),
      /<td>unreadable: hosts\/xfs\/env\/summary\.json: Unexpected token '\|', &quot;\{/,
    );
  });
});

describe('samples.csv', () => {
  it('one sample a row, core labels first, scenario labels after, quoted when needed', async () => {
    const { samplesCsv } = await import('../../../lab/report/csv.ts');
    const csv = samplesCsv([
      {
        run: 'r',
        host: 'h',
        profile: 'p',
        scenario: 'fio',
        mount: 'layer',
        rep: 1,
        trial: 't',
        metric: 'bw',
        value: 1.5,
        unit: 'KiB/s',
        timestamp: 'x',
        job: 'a,b',
        direction: 'read',
      },
    ]);
    assert.equal(
      csv,
      'run,host,profile,scenario,mount,rep,trial,metric,value,unit,timestamp,direction,job\nr,h,p,fio,layer,1,t,bw,1.5,KiB/s,x,read,"a,b"\n',
    );
  });
});

const CHROMIUM = findOnPath('chromium');

describe('report.html', () => {
  it('is self-contained: inline SVG plots (dots and forest), the same tables, no scripts', async () => {
    const run = loadRun(dir);
    const analysis = analyzeRun(run);
    const html = await renderHtml(buildReport(run, analysis));
    assert.equal((html.match(/<svg /g) ?? []).length, 3, 'bw dots, p99 dots, forest plot');
    assert.doesNotMatch(html, /<script|https?:\/\/(?!www\.w3\.org)/, 'no scripts, nothing fetched');
    assert.match(html, /<td>randread<\/td><td>layer<\/td><td class="num">103000 \(101000–105000\)<\/td>/);
    writeFileSync(join(dir, 'report.html'), html);
  });

  it('plots hosts on the x axis for scenarios without mount kinds, mounts for the others', () => {
    const sample = (host: string, mount: string) => ({
      run: 'r',
      host,
      profile: 'p',
      scenario: 'lifecycle',
      mount,
      rep: 1,
      trial: 't',
      metric: 'seconds',
      value: 1,
      unit: 's',
      timestamp: '',
      phase: 'run',
    });
    const metric = { name: 'seconds', unit: 's', better: 'lower', description: '' } as const;
    const xOf = (spec: unknown) =>
      (spec as { spec: { layer: { encoding: { x: { field: string } } }[] } }).spec.layer[0]?.encoding.x.field;
    assert.equal(xOf(dotsSpec([sample('a', 'none'), sample('b', 'none')], metric, [])), 'host');
    assert.equal(xOf(dotsSpec([sample('a', 'volume'), sample('b', 'bind')], metric, ['volume', 'bind'])), 'mount');
  });

  it(
    'renders in headless Chromium with visible plots and no console errors',
    { skip: CHROMIUM === undefined && needs('chromium') },
    async () => {
      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
      try {
        const page = await browser.newPage();
        const problems: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
        });
        page.on('pageerror', (e) => problems.push(e.message));
        await page.goto(`file://${join(dir, 'report.html')}`);
        const boxes = await page.$$eval('figure svg', (svgs) =>
          svgs.map((s) => s.getBoundingClientRect().width * s.getBoundingClientRect().height),
        );
        assert.equal(boxes.length, 3);
        assert.ok(
          boxes.every((area) => area > 20_000),
          `plots have area: ${boxes}`,
        );
        const marks = await page.$$eval('figure svg path, figure svg line', (els) => els.length);
        assert.ok(marks > 20, `plots have marks: ${marks}`);
        await page.screenshot({ path: join(dir, 'report.png'), fullPage: true });
        if (process.env.LAYERLAB_KEEP_SCREENSHOT)
          await page.screenshot({ path: process.env.LAYERLAB_KEEP_SCREENSHOT, fullPage: true });
        assert.deepEqual(problems, []);
      } finally {
        await browser.close();
      }
    },
  );
});

describe('one report model, two renderers', () => {
  const model: Report = {
    title: 'a <title>',
    sections: [
      {
        level: 1,
        title: plain('a <title>'),
        blocks: [
          paragraph(prose('intro with `code` and **bold**'), plain('second line: `not code` | **not bold**')),
          {
            kind: 'list',
            items: [
              { text: prose('**a** one'), items: [plain('e1'), plain('e2')] },
              { text: plain('b two'), items: [] },
            ],
          },
        ],
      },
      {
        level: 2,
        title: plain('Table'),
        blocks: [
          table(
            ['k', 'v'],
            ['left', 'right'],
            [
              [plain('a|b'), inline`${3} **differs**`],
              [plain('x'), NO_CELL],
            ],
          ),
          { kind: 'figure', caption: plain('no plot: why') },
        ],
      },
    ],
  };

  it('Markdown: blocks apart by a blank line, table cells escaped, guest text never read as markup, no figures', () => {
    assert.equal(
      renderMarkdown(model),
      [
        '# a \\<title\\>',
        '',
        'intro with `code` and **bold**',
        'second line: \\`not code\\` \\| \\*\\*not bold\\*\\*',
        '',
        '- **a** one',
        '  - e1',
        '  - e2',
        '- b two',
        '',
        '## Table',
        '',
        '| k | v |',
        '|---|---:|',
        '| a\\|b | 3 **differs** |',
        '| x | |',
        '',
      ].join('\n'),
    );
  });

  it('HTML: the same blocks as elements, plain text escaped and shown as it is, lists two levels deep', async () => {
    const html = await renderHtml(model);
    assert.match(html, /<title>a &lt;title&gt;<\/title>/);
    assert.match(
      html,
      /<p>intro with <code>code<\/code> and <strong>bold<\/strong> second line: `not code` \| \*\*not bold\*\*<\/p>/,
    );
    assert.match(html, /<ul><li><strong>a<\/strong> one<ul><li>e1<\/li><li>e2<\/li><\/ul><\/li><li>b two<\/li><\/ul>/);
    assert.match(
      html,
      /<tr><td>a\|b<\/td><td class="num">3 <strong>differs<\/strong><\/td><\/tr><tr><td>x<\/td><td class="num"><\/td><\/tr>/,
    );
    assert.match(html, /<p class="no-figure">no plot: why<\/p>/);
  });

  it('report.html is not made from report.md: the renderers share only the model', () => {
    const source = readFileSync(new URL('../../../lab/report/html.ts', import.meta.url), 'utf8');
    assert.doesNotMatch(source, /markdown/i);
  });
});

describe('compare two runs', () => {
  it('flags a regression only where the new run is consistently worse', async () => {
    const { compareRuns, formatDeltas } = await import('../../../lab/commands/compare-runs.ts');
    const older = join(dir, 'old');
    const same = join(dir, 'same');
    const slower = join(dir, 'slower');
    writeRun(older);
    writeRun(same);
    writeRun(slower, { dmFactor: 0.5 });
    const unchanged = compareRuns(older, same);
    assert.ok(unchanged.length > 0, 'unchanged.length > 0');
    assert.ok(
      unchanged.every((d) => d.kind === 'no-difference'),
      'nothing changed: no consistent difference',
    );
    const deltas = compareRuns(older, slower);
    const regressions = deltas.filter((d) => d.kind === 'regression');
    assert.deepEqual([...new Set(regressions.map((d) => d.host))], ['dm']);
    assert.equal(regressions.length, 4, 'dm: bw and p99 on layer and volume');
    assert.match(formatDeltas('old', 'slower', deltas), /\*\*REGRESSION\*\* new is 29% lower — worse/);
  });
});

describe('history', () => {
  it('records a run once (re-recording replaces it) and lists runs per lab', async () => {
    const { History } = await import('../../../lab/history/history.ts');
    const history = new History(join(dir, 'history.sqlite'));
    try {
      const run = loadRun(dir);
      history.record(run);
      history.record(run);
      const runs = history.runs();
      assert.equal(runs.length, 1);
      assert.equal(runs[0]?.run_id, 'r-demo');
      assert.equal(runs[0]?.samples, 2 * 2 * 5 * 3);
      assert.deepEqual(history.runs('other-lab'), []);
    } finally {
      history.close();
    }
  });
});
