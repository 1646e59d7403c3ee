/**
 * Analyze + render of 100,000 samples (issue goal: under 5 s on a 2-core machine).
 * Builds a synthetic run folder (4 hosts x 3 mounts x 4 fio jobs x 5 metrics,
 * 417 repetitions), then times loading, the Markdown report (cell statistics
 * and every comparison with its interval) and the HTML report (SVG plots).
 * Usage: npm run bench:analyze
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeRun } from '../lab/analyze/analysis.ts';
import { loadRun } from '../lab/record/load.ts';
import { buildReport } from '../lab/report/build.ts';
import { renderHtml } from '../lab/report/html.ts';
import { renderMarkdown } from '../lab/report/markdown.ts';
import { mulberry32 } from '../lab/util/rng.ts';

const dir = mkdtempSync(join(tmpdir(), 'layerlab-bench-analyze-'));
const hosts = ['xfs', 'dm', 'ext4', 'btr'].map((name, i) => ({
  name,
  profile: ['overlay2-xfs', 'devicemapper-lvm', 'overlay2-xfs', 'devicemapper-lvm'][i] as string,
}));
const mounts = ['layer', 'volume', 'bind'];
const jobs = [
  ['seqwrite', 'write'],
  ['seqread', 'read'],
  ['randwrite', 'write'],
  ['randread', 'read'],
];
const metrics = [
  ['bw', 'KiB/s'],
  ['iops', 'IO/s'],
  ['clat_mean', 'us'],
  ['clat_p50', 'us'],
  ['clat_p99', 'us'],
];
const reps = Math.ceil(100_000 / (hosts.length * mounts.length * jobs.length * metrics.length));
const random = mulberry32(1);
const lines: string[] = [];
for (const host of hosts)
  for (const mount of mounts)
    for (let rep = 1; rep <= reps; rep++)
      for (const [job, direction] of jobs)
        for (const [metric, unit] of metrics)
          lines.push(
            JSON.stringify({
              run: 'bench',
              host: host.name,
              profile: host.profile,
              scenario: 'fio',
              mount,
              rep,
              trial: `r${rep}-${host.name}-fio-${mount}`,
              metric,
              value: 1000 * (1 + 0.1 * random()),
              unit,
              timestamp: '2026-11-30T00:00:00Z',
              job,
              direction,
            }),
          );
writeFileSync(join(dir, 'samples.ndjson'), `${lines.join('\n')}\n`);
writeFileSync(
  join(dir, 'manifest.json'),
  JSON.stringify({
    runId: 'bench',
    lab: { name: 'bench', seed: 1, repetitions: reps, hosts, mounts },
    inventory: { target: 'local' },
    plan: { seed: 1, mode: 'serial' },
  }),
);
mkdirSync(join(dir, 'hosts'));

try {
  const t0 = performance.now();
  const run = loadRun(dir);
  const t1 = performance.now();
  const analysis = analyzeRun(run);
  const t2 = performance.now();
  const model = buildReport(run, analysis);
  const markdown = renderMarkdown(model);
  const t3 = performance.now();
  const html = await renderHtml(model);
  const t4 = performance.now();
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(`samples: ${run.samples.length} (${reps} repetitions per cell)`);
  console.log(`load:            ${s(t1 - t0)}`);
  const comparisons = analysis.reduce((n, a) => n + a.comparisons.length, 0);
  console.log(`analyze:         ${s(t2 - t1)} (${comparisons} comparisons)`);
  console.log(`report.md:       ${s(t3 - t2)} (${markdown.length} bytes)`);
  console.log(`report.html:     ${s(t4 - t3)} (${html.length} bytes)`);
  console.log(`analyze+render:  ${s(t4 - t0)}   goal < 5 s`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
