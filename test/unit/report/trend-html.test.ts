/**
 * Issue 37 items 2 and 6: the trend page of three recorded nights
 * (test/unit/history/nights.ts), as markup and in headless Chromium: one
 * panel per cell, the regression markers where the comparison flagged the
 * cell, the kernel change annotated, guest names as text, no console errors.
 *
 * docs/trends.png is this page's first screen, drawn by this test:
 *   LAYERLAB_KEEP_SCREENSHOT=docs/trends.png node --import tsx --test test/unit/report/trend-html.test.ts
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { History } from '../../../lab/history/history.ts';
import { buildTrends } from '../../../lab/history/trends.ts';
import { renderTrendHtml } from '../../../lab/report/trend-html.ts';
import type { TrendModel } from '../../../lab/report/trend-model.ts';
import { NEW_KERNEL, resultsFolder, threeNights } from '../history/nights.ts';
import { SKIP_WITHOUT_CHROMIUM, launchChromium, openWatched } from './browser.ts';

const dir = mkdtempSync(join(tmpdir(), 'layerlab-trend-html-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let model: TrendModel;
let pictureModel: TrendModel;
before(async () => {
  const folder = resultsFolder();
  try {
    await threeNights(folder);
    const history = await History.forResults(folder.path);
    try {
      model = buildTrends(history);
      // The picture in the docs: host xfs's cells, where the regression and the kernel change are.
      pictureModel = buildTrends(history, { cells: ['/xfs/'] });
    } finally {
      history.close();
    }
  } finally {
    folder.restore();
  }
});

const count = (html: string, re: RegExp) => [...html.matchAll(re)].length;

describe('the trend page', () => {
  it('one figure per cell, each with its SVG; no script, nothing fetched', () => {
    const html = renderTrendHtml(model);
    assert.equal(count(html, /<figure class="trend-panel"/g), 24);
    assert.equal(count(html, /<svg class="trend"/g), 24);
    assert.doesNotMatch(html, /<script|src=|href=/, 'self-contained');
    assert.match(html, /<title>layerlab trends: lab nightly<\/title>/);
  });

  it('a regression marker on each cell the comparison flagged; the flagged night tinted in every panel', () => {
    const html = renderTrendHtml(model);
    assert.equal(count(html, /<path class="regression"/g), 12, 'the 12 headline cells of xfs');
    assert.equal(count(html, /<rect class="flagged-night"/g), 24, 'night 2 in every panel');
    const dm = html.slice(html.indexOf('data-cell="fio/dm/bind/randread/read/bw"'));
    assert.doesNotMatch(dm.slice(0, dm.indexOf('</figure>')), /class="regression/, 'not on dm');
  });

  it('the kernel change: a numbered mark on xfs’s panels, and what changed under each', () => {
    const html = renderTrendHtml(model);
    assert.equal(count(html, /<g class="env-change">/g), 12);
    assert.equal(
      count(
        html,
        new RegExp(
          `<li value="1"><span class="when">2026-12-03 02:00Z</span>: xfs: kernel 6\\.1\\.0-27-cloud-amd64 → ${NEW_KERNEL.replaceAll('.', '\\.')}</li>`,
          'g',
        ),
      ),
      12,
    );
  });

  it('names from guests are text, never markup', () => {
    const evil = '<img src=x onerror=alert(1)>\u202e';
    const lab = model.labs[0] as TrendModel['labs'][0];
    const panel = { ...(lab.panels[0] as TrendModel['labs'][0]['panels'][0]), series: evil, host: evil, cell: evil };
    panel.envChanges = [{ night: 2, changes: [`${evil}: kernel a → ${evil}`] }];
    const html = renderTrendHtml({ source: 'h', labs: [{ ...lab, lab: evil, panels: [panel] }] });
    assert.doesNotMatch(html, /<img/);
    assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;\\u202e/);
  });
});

it(
  'in headless Chromium: a panel per cell, the regression markers and the annotations on screen, no console errors',
  { skip: SKIP_WITHOUT_CHROMIUM },
  async () => {
    const file = join(dir, 'trends.html');
    writeFileSync(file, renderTrendHtml(model));
    const browser = await launchChromium();
    try {
      const { page, problems } = await openWatched(browser, file, { width: 1280, height: 800 });
      /** Elements matching `selector` that the page lays out with an area. */
      const shown = (selector: string) =>
        page.$$eval(
          selector,
          (els) =>
            els.filter((el) => {
              const r = el.getBoundingClientRect();
              return (
                r.width > 0 &&
                r.height > 0 &&
                el.ownerDocument.defaultView?.getComputedStyle(el).visibility !== 'hidden'
              );
            }).length,
        );
      assert.equal(await shown('figure.trend-panel'), 24, 'one panel per cell');
      assert.equal(await shown('figure.trend-panel svg.trend'), 24, 'each with its plot');
      assert.equal(await shown('svg.trend path.regression'), 12, 'the regression markers');
      assert.equal(await shown('svg.trend g.env-change'), 12, 'the change marks');
      assert.equal(await shown('ol.env-changes li'), 12, 'what changed, under each of xfs’s panels');
      const fill = await page.$eval(
        'svg.trend path.regression',
        (el) => el.ownerDocument.defaultView?.getComputedStyle(el).fill,
      );
      assert.equal(fill, 'rgb(214, 39, 40)', 'the marker is drawn red');
      const text = await page.$eval('figure[data-cell="fio/xfs/volume/seqwrite/write/bw"]', (el) => el.textContent);
      assert.match(text ?? '', new RegExp(`kernel 6\\.1\\.0-27-cloud-amd64 → ${NEW_KERNEL.replaceAll('.', '\\.')}`));
      assert.deepEqual(problems, []);

      if (process.env.LAYERLAB_KEEP_SCREENSHOT) {
        const picture = join(dir, 'picture.html');
        writeFileSync(picture, renderTrendHtml(pictureModel));
        await page.goto(`file://${picture}`);
        await page.screenshot({ path: process.env.LAYERLAB_KEEP_SCREENSHOT });
      }
    } finally {
      await browser.close();
    }
  },
);
