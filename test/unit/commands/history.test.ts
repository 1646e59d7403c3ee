/**
 * `layerlab history plot` through the CLI: exit 0 and three files whose
 * paths it prints; exit 2, with nothing written, for bad options and for a
 * history with nothing to plot.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { main } from '../../../lab/cli.ts';
import { resultsFolder, threeNights } from '../history/nights.ts';

/** Runs the CLI, capturing what it prints. */
async function layerlab(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const [write, writeErr] = [process.stdout.write, process.stderr.write];
  let stdout = '';
  let stderr = '';
  process.stdout.write = (s: string | Uint8Array) => {
    stdout += String(s);
    return true;
  };
  process.stderr.write = (s: string | Uint8Array) => {
    stderr += String(s);
    return true;
  };
  try {
    return { code: await main(['node', 'layerlab', ...args]), stdout, stderr };
  } finally {
    process.stdout.write = write;
    process.stderr.write = writeErr;
    process.exitCode = 0;
  }
}

describe('layerlab history plot', () => {
  let folder: ReturnType<typeof resultsFolder>;
  before(() => {
    folder = resultsFolder();
  });
  after(() => folder.restore());

  it('an empty history: a clear message, exit 2, nothing written', async () => {
    const r = await layerlab('history', 'plot');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /history plot: no history at .*history\.sqlite: nothing to plot/);
    assert.ok(!existsSync(join(folder.path, 'trends')), 'no trends folder');
  });

  it('three nights: exit 0, the page, CSV and JSON under results/trends, their paths printed', async () => {
    await threeNights(folder);
    const r = await layerlab('history', 'plot');
    assert.equal(r.code, 0, r.stderr);
    const files = ['trends.html', 'trends.csv', 'trends.json'].map((f) => join(folder.path, 'trends', f));
    assert.equal(r.stdout, `24 cell(s) over 3 night(s):\n${files.map((f) => `${f}\n`).join('')}`);
    assert.match(readFileSync(files[0] as string, 'utf8'), /<figure class="trend-panel"/);
  });

  it('--lab, --cell (repeatable), --last and --out', async () => {
    const out = join(folder.path, 'picked');
    const r = await layerlab(
      'history',
      'plot',
      '--lab',
      'nightly',
      '--cell',
      'xfs/volume',
      '--cell',
      'dm/bind/randread/read/bw',
      '--last',
      '2',
      '--out',
      out,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^5 cell\(s\) over 2 night\(s\):\n/);
    assert.equal(JSON.parse(readFileSync(join(out, 'trends.json'), 'utf8')).labs[0].panels.length, 5);
  });

  it('bad options exit 2 before anything is read or written', async () => {
    const out = join(folder.path, 'never');
    const cases: [string[], RegExp][] = [
      [['--last', '0'], /--last: expected a number of nights from 1 to 9999; got "0"/],
      [['--last', 'ten'], /--last: expected a number/],
      [['--lab', 'Bad Name'], /--lab: expected a name/],
      [['--cell', ''], /--cell: expected part of a cell name/],
      [['--bogus'], /unknown option '--bogus'/],
      [['--lab', 'other'], /no runs of lab other with samples/],
      [['--cell', 'nope'], /matches --cell "nope"/],
    ];
    for (const [args, message] of cases) {
      const r = await layerlab('history', 'plot', ...args, '--out', out);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, message, args.join(' '));
      assert.ok(!existsSync(out), `${args.join(' ')}: nothing written`);
    }
  });

  it('history --lab still lists runs (its --lab is its own, not plot’s)', async () => {
    const r = await layerlab('history', '--lab', 'nightly');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trimEnd().split('\n').length, 4, 'a header and three nights');
    rmSync(join(folder.path, 'trends'), { recursive: true, force: true });
  });
});
