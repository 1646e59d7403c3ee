/**
 * The report model (lab/report/model.ts) and its renderers on a fixture run:
 * report.md, report.html, samples.csv, compare and history; guest text in
 * table cells; and what the report says about the seeds beyond the verdicts —
 * under each claim, the parameters of the run unlike the seed's (read from
 * the run's recorded lab definition, manifest.json, and shown by both
 * renderers) and the comparisons inside a scenario: backup's methods,
 * lifecycle's drivers phase by phase beside the seed's seconds.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { analyzeRun } from '../../../lab/analyze/analysis.ts';
import { type LoadedRun, loadRun } from '../../../lab/record/load.ts';
import type { Sample } from '../../../lab/record/samples.ts';
import { buildReport } from '../../../lab/report/build.ts';
import { renderHtml } from '../../../lab/report/html.ts';
import { renderMarkdown } from '../../../lab/report/markdown.ts';
import { NO_CELL, type Report, inline, paragraph, plain, prose, table } from '../../../lab/report/model.ts';
import { dotsSpec } from '../../../lab/report/plots.ts';
import { renderRun, runInMemory, writeRun } from '../run-fixture.ts';
import { SKIP_WITHOUT_CHROMIUM, launchChromium, openWatched } from './browser.ts';

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
    { skip: SKIP_WITHOUT_CHROMIUM },
    async () => {
      const browser = await launchChromium();
      try {
        const { page, problems } = await openWatched(browser, join(dir, 'report.html'));
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
    const history = await History.open(join(dir, 'history.sqlite'));
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

/** The fixture run (fio on xfs and dm, layer and volume), its lab recorded with these fio parameters. */
function runWithFio(
  name: string,
  fio: Record<string, unknown>,
  repetitions: unknown,
  scenarioRepetitions = {},
  xfsProfile?: string,
): LoadedRun {
  const runDir = join(dir, name);
  writeRun(runDir);
  const manifestFile = join(runDir, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  // The host's profile as the lab recorded it (the claims read the stack from there).
  if (xfsProfile)
    for (const h of manifest.lab.hosts as { name: string; profile: string }[])
      if (h.name === 'xfs') h.profile = xfsProfile;
  manifest.lab.scenarios = { fio };
  manifest.lab.repetitions = repetitions;
  manifest.lab.scenarioRepetitions = scenarioRepetitions;
  writeFileSync(manifestFile, JSON.stringify(manifest));
  return loadRun(runDir);
}

describe("parameters unlike the seed's, under each claim", () => {
  it('report.md and report.html list each one with the seed value, this run value and the seed words', async () => {
    const run = runWithFio('small', { size: '8M', runtime: 1, ramp: 0, iodepth: 16 }, { min: 5, max: 5 });
    const { md, html } = await renderRun(run);
    const lines = [
      'unlike the seed: fio file size — seed: 512 MiB; this run: 8 MiB (seed 003 line 35: “--size=512M”)',
      'unlike the seed: fio runtime per job — seed: 15 s; this run: 1 s (seed 003 line 35: “--runtime=15”)',
      'unlike the seed: fio ramp per job — seed: 2 s; this run: 0 s (seed 003 line 39: “with a 2 s ramp”)',
      'unlike the seed: fio iodepth — seed: 32; this run: 16 (seed 003 line 35: “--iodepth=32”)',
      'unlike the seed: repetitions — seed: 3 runs; this run: 5 runs (seed 003 line 9: “with three runs per cell”)',
    ];
    for (const line of lines) {
      assert.ok(md.includes(`  - ${line}\n`), `report.md: ${line}`);
      assert.ok(html.includes(`<li>${line}</li>`), `report.html: ${line}`);
    }
    assert.match(
      md,
      / {2}- as the seed: fio random block size 4 KiB; fio jobs seqwrite, seqread, randwrite, randread; fio container fresh; fio file per-trial\n/,
    );
    // Under the fio claim, after its evidence.
    assert.match(
      md,
      /\(seed 003\): no fio throughput gap[^\n]*\n( {2}- [^\n]*\n)* {2}- unlike the seed: fio file size/,
    );
  });

  it("a run at the seed's parameters on the seed's stack lists none of them as unlike", async () => {
    const run = runWithFio('at-seed', { size: '512M', runtime: 15, ramp: 2, iodepth: 32 }, 3, {}, 'containerd-ext4');
    const { md } = await renderRun(run);
    assert.doesNotMatch(md, / {2}- unlike the seed:/);
    assert.match(
      md,
      / {2}- as the seed: storage stack ext4 root, containerd overlayfs snapshotter \(one virtio disk\); fio file size 512 MiB; fio runtime per job 15 s; fio ramp per job 2 s; fio iodepth 32; fio random block size 4 KiB; fio jobs seqwrite, seqread, randwrite, randread; fio container fresh; fio file per-trial; repetitions 3 runs\n/,
    );
  });

  it("the seed's storage stack: a host on another profile is listed as unlike, with its profile", async () => {
    const { md, html } = await renderRun(
      runWithFio('xfs-stack', { size: '512M', runtime: 15, ramp: 2, iodepth: 32 }, 3),
    );
    const line =
      'unlike the seed: storage stack — seed: ext4 root, containerd overlayfs snapshotter (one virtio disk); this run: host xfs: overlay2-xfs (data disk mkfs.xfs -n ftype=1, mounted at /var/lib/docker, overlay2) (seed 003 line 7: “ext4 root, containerd overlayfs snapshotter”)';
    assert.ok(md.includes(`  - ${line}\n`), `report.md: ${line}`);
    assert.ok(html.includes(`<li>${line}</li>`), `report.html: ${line}`);
    // Only the stack: every settable parameter is the seed's.
    assert.equal(md.match(/ {2}- unlike the seed:/g)?.length, 2, 'one stack line under each of the two fio claims');
  });

  it('a scenario run fewer times than the lab (scenarioRepetitions) states its own count, in the header and under its claim', async () => {
    const { md } = await renderRun(runWithFio('capped', {}, 5, { fio: 3 }));
    assert.match(md, / · 5 repetition\(s\) \(fewer for fio 3\) · /);
    assert.match(md, / {2}- as the seed: [^\n]*; repetitions 3 runs\n/);
  });

  it('a run whose lab recorded no parameters (an old run) says so instead of guessing', async () => {
    const runDir = join(dir, 'unrecorded');
    writeRun(runDir);
    const { md } = await renderRun(loadRun(runDir));
    assert.match(md, /unlike the seed: fio file size — seed: 512 MiB; this run: not recorded/);
  });
});

/** Five repetitions at ±2% around `base`. */
const reps = (base: number) => [0.98, 1.0, 1.02, 0.99, 1.01].map((f) => base * f);

const scenarioRun = (samples: Sample[]) =>
  runInMemory(samples, {
    hosts: [
      { name: 'xfs', profile: 'overlay2-xfs' },
      { name: 'dm', profile: 'devicemapper-lvm' },
    ],
    mounts: ['layer'],
    repetitions: 5,
  });

const sample = (host: string, scenario: string, rep: number, value: number, labels: Record<string, string>) =>
  ({
    run: 'r',
    host,
    profile: host === 'dm' ? 'devicemapper-lvm' : 'overlay2-xfs',
    scenario,
    mount: 'none',
    rep,
    trial: `r${rep}-${host}-${scenario}-none`,
    metric: 'seconds',
    value,
    unit: 's',
    timestamp: '',
    ...labels,
  }) as Sample;

describe('comparisons inside a scenario', () => {
  it("backup: the methods against each other on each host, in the scenario's comparisons table", async () => {
    const samples = ['xfs', 'dm'].flatMap((host) =>
      (
        [
          ['host-bind', 4],
          ['host-volume', 4],
          ['helper-container', 6],
        ] as const
      ).flatMap(([method, s]) => reps(s).map((v, i) => sample(host, 'backup', i + 1, v, { method }))),
    );
    const { md } = await renderRun(scenarioRun(samples));
    assert.match(
      md,
      /\| host dm \| method \| seconds \(lower is better\) \| host-bind vs helper-container \| 5\/5 \| host-bind is 33% lower — better \(ratio 0\.67/,
    );
    assert.match(md, /and ways of doing the same work \(method\) with each other on the same host\./);
    assert.match(
      md,
      /- \*\*confirmed\*\*; size: \*\*contradicted\*\* \(seed 003\): tar czf of a volume through a helper/,
    );
  });

  it('lifecycle: devicemapper against overlay2 phase by phase, beside the seed seconds', async () => {
    const samples = (
      [
        ['run', 10, 40],
        ['inspect', 2, 2],
        ['rm', 1, 5],
      ] as const
    ).flatMap(([phase, overlay, dm]) =>
      ['xfs', 'dm'].flatMap((host) =>
        reps(host === 'dm' ? dm : overlay).map((v, i) => sample(host, 'lifecycle', i + 1, v, { phase })),
      ),
    );
    const { md, html } = await renderRun(scenarioRun(samples));
    const table = md.slice(md.indexOf('### devicemapper against overlay2, phase by phase'));
    assert.match(
      table,
      /\| run \| 38\.8 \/ 7\.53 s = 5\.16× \| dm \/ xfs \| 4\.00× \(3\.88×–4\.12×\) \| xfs is 75% lower — better/,
    );
    assert.match(
      table,
      /\| inspect \| 18\.3 \/ 2\.69 s = 6\.78× \| dm \/ xfs \| 1\.00× \(0\.97×–1\.03×\) \| no consistent difference/,
    );
    assert.match(table, /\| rm \| 2\.29 \/ 0\.21 s = 11\.1× \| dm \/ xfs \| 5\.00×/);
    assert.ok(
      html.includes('<h3>devicemapper against overlay2, phase by phase</h3>'),
      'the phase table in report.html',
    );
    // Without a devicemapper host there is nothing to set beside the seed.
    const { md: overlayOnly } = await renderRun(scenarioRun(samples.filter((s) => s.host === 'xfs')));
    assert.doesNotMatch(overlayOnly, /phase by phase/);
  });
});
