import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { renderHtml } from '../../lab/report/html.ts';
import { loadRun } from '../../lab/report/load-run.ts';
import { renderMarkdown } from '../../lab/report/markdown.ts';

const dir = mkdtempSync(join(tmpdir(), 'layerlab-report-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A run folder as the runner writes it, with made-up but plausible numbers. */
function writeRun(): void {
  const lab = {
    name: 'demo',
    seed: 1,
    repetitions: 3,
    hosts: [
      { name: 'xfs', profile: 'overlay2-xfs' },
      { name: 'dm', profile: 'devicemapper-lvm' },
    ],
    mounts: ['layer', 'volume'],
  };
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({
      runId: 'r-demo',
      lab,
      inventory: { target: 'local' },
      plan: { seed: 1, mode: 'serial' },
      gitRevision: 'abc',
    }),
  );
  const lines: string[] = [];
  const journal: string[] = [];
  for (const host of lab.hosts) {
    for (const mount of lab.mounts) {
      for (let rep = 1; rep <= 3; rep++) {
        const trial = `r${rep}-${host.name}-fio-${mount}`;
        journal.push(JSON.stringify({ trial, host: host.name, state: 'done' }));
        // devicemapper at about 70% of overlay2; mounts within 2% of each other.
        const bw = (host.name === 'xfs' ? 100_000 : 70_000) * (1 + rep / 100) * (mount === 'volume' ? 1.01 : 1);
        for (const [metric, value, unit] of [
          ['bw', bw, 'KiB/s'],
          ['iops', bw / 4, 'IO/s'],
          ['clat_p99', 1e9 / bw, 'us'],
        ] as const) {
          lines.push(
            JSON.stringify({
              run: 'r-demo',
              host: host.name,
              profile: host.profile,
              scenario: 'fio',
              mount,
              rep,
              trial,
              metric,
              value,
              unit,
              timestamp: '2026-11-30T00:00:00Z',
              job: 'randread',
              direction: 'read',
            }),
          );
        }
      }
    }
  }
  journal.push(
    JSON.stringify({
      trial: 'r1-dm-fio-bind',
      host: 'dm',
      state: 'failed',
      reason: 'fio job seqwrite failed with error 28 (ENOSPC)',
    }),
  );
  writeFileSync(join(dir, 'samples.ndjson'), `${lines.join('\n')}\n`);
  writeFileSync(join(dir, 'journal.ndjson'), `${journal.join('\n')}\n`);
  mkdirSync(join(dir, 'hosts', 'xfs', 'env'), { recursive: true });
  writeFileSync(
    join(dir, 'hosts', 'xfs', 'env', 'summary.json'),
    JSON.stringify({
      kernel: '6.1.0-x-cloud-amd64',
      docker_version: '20.10.24+dfsg1',
      storage_driver: 'overlay2',
      backing_fs: 'xfs',
      docker_root_fstype: 'xfs',
      docker_root_source: '/dev/vdb',
      data_disk: '/dev/vdb',
      data_disk_bytes: String(4 * 1024 ** 3),
      cpus: '2',
      mem_bytes: String(1024 ** 3),
      loadavg: '0.10 0.20 0.30 1/100 42',
    }),
  );
}

describe('report.md', () => {
  writeRun();
  const md = renderMarkdown(loadRun(dir));

  it('has a table per host with median (min–max) and n per job and mount', () => {
    assert.match(md, /### xfs \(overlay2-xfs\)/);
    assert.match(
      md,
      /\| randread \| layer \| 102000 \(101000–103000\) \| 25500 \(25250–25750\) \| 9804 \(9709–9901\) \| 3 \|/,
    );
  });

  it('compares profiles and mounts with intervals and honest verdicts', () => {
    assert.match(
      md,
      /\| mount layer \| read\/randread \| bw \(higher is better\) \| xfs vs dm \| 3\/3 \| A is 4\d% higher — better/,
    );
    assert.match(
      md,
      /\| host xfs \| read\/randread \| bw \(higher is better\) \| layer vs volume \| 3\/3 \| no consistent difference/,
    );
    assert.match(
      md,
      /\| mount layer \| read\/randread \| clat_p99 \(lower is better\) \| xfs vs dm \| 3\/3 \| A is 3\d% lower — better/,
    );
  });

  it('lists failed trials and the hosts', () => {
    assert.match(md, /\| r1-dm-fio-bind \| dm \| fio job seqwrite failed with error 28 \(ENOSPC\) \|/);
    assert.match(
      md,
      /\| xfs \| 6\.1\.0-x-cloud-amd64 \| 20\.10\.24\+dfsg1 \| overlay2 on xfs \| xfs \/dev\/vdb \| \/dev\/vdb 4\.0 GiB \| 2 \| 1\.0 GiB \| 0\.10 0\.20 0\.30 \|/,
    );
  });
});

describe('samples.csv', () => {
  it('one sample a row, core labels first, scenario labels after, quoted when needed', async () => {
    const { samplesCsv } = await import('../../lab/report/csv.ts');
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

const CHROMIUM = '/usr/bin/chromium';

describe('report.html', () => {
  it('is self-contained: inline SVG plots (dots and forest), the same tables, no scripts', async () => {
    const run = loadRun(dir);
    const html = await renderHtml(run, renderMarkdown(run));
    assert.equal((html.match(/<svg /g) ?? []).length, 3, 'bw dots, p99 dots, forest plot');
    assert.doesNotMatch(html, /<script|https?:\/\/(?!www\.w3\.org)/, 'no scripts, nothing fetched');
    assert.match(html, /<td>randread<\/td><td>layer<\/td><td>102000 \(101000–103000\)<\/td>/);
    writeFileSync(join(dir, 'report.html'), html);
  });

  it(
    'renders in headless Chromium with visible plots and no console errors',
    { skip: !existsSync(CHROMIUM) && `${CHROMIUM} is not installed (apt-get install chromium)` },
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
