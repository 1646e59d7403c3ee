/**
 * What the report says about the seeds beyond the verdicts: under each claim,
 * the parameters of the run unlike the seed's — read from the run's recorded
 * lab definition (manifest.json) and shown by both renderers — and the
 * comparisons inside a scenario: backup's methods, lifecycle's drivers phase
 * by phase beside the seed's seconds.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { type LoadedRun, loadRun } from '../../../lab/record/load.ts';
import type { Sample } from '../../../lab/record/samples.ts';
import { renderRun, runInMemory, writeRun } from '../run-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'layerlab-report-seeds-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The fixture run (fio on xfs and dm, layer and volume), its lab recorded with these fio parameters. */
function runWithFio(
  name: string,
  fio: Record<string, unknown>,
  repetitions: unknown,
  scenarioRepetitions = {},
): LoadedRun {
  const runDir = join(dir, name);
  writeRun(runDir);
  const manifestFile = join(runDir, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
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
      / {2}- as the seed: fio random block size 4 KiB; fio jobs seqwrite, seqread, randwrite, randread\n/,
    );
    // Under the fio claim, after its evidence.
    assert.match(
      md,
      /\(seed 003\): no fio throughput gap[^\n]*\n( {2}- [^\n]*\n)* {2}- unlike the seed: fio file size/,
    );
  });

  it("a run at the seed's parameters lists none of them as unlike", async () => {
    const run = runWithFio('at-seed', { size: '512M', runtime: 15, ramp: 2, iodepth: 32 }, 3);
    const { md } = await renderRun(run);
    assert.doesNotMatch(md, / {2}- unlike the seed:/);
    assert.match(
      md,
      / {2}- as the seed: fio file size 512 MiB; fio runtime per job 15 s; fio ramp per job 2 s; fio iodepth 32; fio random block size 4 KiB; fio jobs seqwrite, seqread, randwrite, randread; repetitions 3 runs\n/,
    );
  });

  it('a scenario run fewer times than the lab (scenarioRepetitions) states its own count, in the header and under its claim', async () => {
    const { md } = await renderRun(runWithFio('capped', {}, 5, { fio: 3 }));
    assert.match(md, / · 5 repetition\(s\) \(fewer for fio 3\) · /);
    assert.match(md, / {2}- as the seed: [^\n]*; repetitions 3 runs\n/);
  });

  it('a run whose lab recorded no parameters (an old run) says so instead of guessing', async () => {
    const runDir = join(dir, 'old');
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
