/**
 * Issue 37 item 1 in report.html: the matrix as a heat-map-like table whose
 * cells link to their comparisons, readable without colour; with the seed
 * claims, on the first screen of a 1280×800 window for labs/quick.yaml.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { analyzeRun } from '../../../lab/analyze/analysis.ts';
import { loadRun } from '../../../lab/record/load.ts';
import { buildReport } from '../../../lab/report/build.ts';
import { MATRIX_LOOK, MATRIX_STYLE } from '../../../lab/report/glance-html.ts';
import { MATRIX_VERDICTS, MATRIX_VERDICT_ORDER } from '../../../lab/report/glance.ts';
import { renderHtml } from '../../../lab/report/html.ts';
import { writeRun } from '../run-fixture.ts';
import { SKIP_WITHOUT_CHROMIUM, launchChromium, openWatched } from './browser.ts';

const dir = mkdtempSync(join(tmpdir(), 'layerlab-glance-html-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** report.html of the recorded quick-shaped run (labs/quick.yaml's hosts, jobs and mount kinds). */
async function quickHtml(): Promise<string> {
  const runDir = join(dir, 'quick');
  writeRun(runDir, { quick: true });
  const run = loadRun(runDir);
  return renderHtml(buildReport(run, analyzeRun(run)));
}

describe('the matrix in report.html', async () => {
  const html = await quickHtml();

  it('opens the page: the title, then the matrix before any other section', () => {
    const body = html.slice(html.indexOf('<body>'));
    assert.match(body, /^<body>\n<h1>layerlab report: quick<\/h1>\n<div class="table"><table class="matrix">/);
    assert.ok(body.indexOf('<h2>Seed claims</h2>') > body.indexOf('class="matrix"'), 'the claims follow the matrix');
  });

  it('every compared cell links to its comparison’s row, and that row is there once', () => {
    const links = [...html.matchAll(/<td class="mx mx-[a-z-]+"><a href="#([a-z0-9-]+)"/g)].map((m) => m[1]);
    assert.equal(links.length, 6, 'six workloads of the one setup that is not the baseline');
    for (const id of links) {
      assert.equal(html.split(`<tr id="${id}">`).length - 1, 1, `one row with id ${id}`);
    }
    assert.match(
      html,
      /<tr id="cmp-fio-profile-layer-randread-read-bw-xfs-vs-dm"><td>mount layer<\/td><td>randread\/read<\/td><td>bw \(higher is better\)<\/td><td>xfs vs dm<\/td>/,
    );
  });

  it('each cell says its verdict in words, the ratio and interval beside it', () => {
    assert.match(
      html,
      /<td class="mx mx-worse"><a href="#[^"]+" title="[^"]+"><span class="mx-r">0\.70×<\/span><span class="mx-ci">0\.6\d–0\.7\d<\/span><span class="mx-v">▼ worse<\/span><\/a><\/td>/,
    );
    assert.match(
      html,
      /<span class="mx-r">103000<\/span><span class="mx-ci">KiB\/s · n 5<\/span><span class="mx-v">◆ baseline/,
    );
  });

  it('the seed claims show their evidence; the parameters unlike the seed’s fold under a count', () => {
    assert.match(
      html,
      /<ul class="claims"><li><strong>confirmed<\/strong> \(seed 003\)[^<]*<ul><li>6 bandwidth comparisons[^<]*<\/li><li><details><summary>the seed's parameters: 7 unlike this run's, 3 the same<\/summary><ul><li>unlike the seed: storage stack/,
    );
  });
});

describe('grey-scale: each verdict reads without its colour', () => {
  it('a word and a sign of its own', () => {
    const words = MATRIX_VERDICT_ORDER.map((v) => MATRIX_VERDICTS[v].word);
    const signs = MATRIX_VERDICT_ORDER.map((v) => MATRIX_VERDICTS[v].sign);
    assert.equal(new Set(words).size, words.length, `distinct words: ${words}`);
    assert.equal(new Set(signs).size, signs.length, `distinct signs: ${signs}`);
  });

  it('a look of its own besides the colour: fill pattern, text weight and style, border', () => {
    const looks = MATRIX_VERDICT_ORDER.map((v) => {
      const { colour: _, ...rest } = MATRIX_LOOK[v];
      return JSON.stringify(rest);
    });
    assert.equal(new Set(looks).size, looks.length, `distinct looks without colour: ${looks.join(' ')}`);
    assert.notEqual(MATRIX_LOOK.better.weight, MATRIX_LOOK['no-difference'].weight, 'a claimed difference is bold');
    for (const v of MATRIX_VERDICT_ORDER) {
      assert.match(MATRIX_STYLE, new RegExp(`\\.mx-${v}\\{[^}]*border-style:${MATRIX_LOOK[v].border}`), v);
    }
    assert.match(MATRIX_STYLE, /\.mx-worse\{background:repeating-linear-gradient/, 'worse is striped');
  });
});

it(
  'first screen of a 1280×800 window: the whole matrix and the seed claims, no console errors',
  { skip: SKIP_WITHOUT_CHROMIUM },
  async () => {
    const file = join(dir, 'report.html');
    writeFileSync(file, await quickHtml());
    const browser = await launchChromium();
    try {
      const { page, problems } = await openWatched(browser, file, { width: 1280, height: 800 });
      const box = (selector: string) =>
        page.$eval(selector, (el) => {
          const r = el.getBoundingClientRect();
          return { right: r.right, bottom: r.bottom };
        });
      const matrix = await box('table.matrix');
      const claims = await box('ul.claims');
      assert.ok(
        matrix.right <= 1280 && matrix.bottom <= 800,
        `the matrix on the first screen: ${JSON.stringify(matrix)}`,
      );
      assert.ok(claims.bottom <= 800, `the seed claims on the first screen: ${JSON.stringify(claims)}`);
      const colours = await page.$$eval('table.matrix td', (tds) =>
        tds.map((td) => td.ownerDocument.defaultView?.getComputedStyle(td).backgroundColor),
      );
      assert.ok(new Set(colours).size >= 3, `verdict colours: ${[...new Set(colours)]}`);
      if (process.env.LAYERLAB_KEEP_SCREENSHOT) await page.screenshot({ path: process.env.LAYERLAB_KEEP_SCREENSHOT });
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  },
);
