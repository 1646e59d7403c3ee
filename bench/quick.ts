/**
 * Benchmarks the harness on labs/quick.yaml (real VMs) and prints, from one run:
 *   - wall time of `layerlab all`
 *   - harness overhead: controller time outside the guest scenario scripts
 *     (SSH setup, push, pull, parsing) / run wall, trials one at a time; goal <= 0.10
 *   - wall-time ratio of `up` for all hosts at once vs the slowest host alone
 *     (parallel boot+prepare); goal <= 1.3
 *   - the controller's peak RSS (VmHWM); goal <= 300 MB
 * Usage: npm run bench [-- labs/other.yaml] [--up-only]
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { type Timed, timedLayerlab } from './timed-cli.ts';

const ROOT = resolve(import.meta.dirname, '..');
const upOnly = process.argv.includes('--up-only');
const labFile = resolve(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? join(ROOT, 'labs', 'quick.yaml'));
const work = mkdtempSync(join(tmpdir(), 'layerlab-bench-'));
const env = { ...process.env, LAYERLAB_HOME: join(work, 'state'), LAYERLAB_RESULTS: join(work, 'results') };
const layerlab = (...args: string[]) => timedLayerlab(env, ...args);

function must(step: string, r: Timed): Timed {
  if (r.code !== 0) throw new Error(`${step} exited with ${r.code}`);
  return r;
}

try {
  const lab = parse(readFileSync(labFile, 'utf8'));
  // Each host alone, so the 2-host figure is compared with its slowest host
  // (an overlay2 host prepares faster than a devicemapper one).
  const single = lab.hosts.map((host: { name: string }) => {
    const file = join(work, `${host.name}.yaml`);
    writeFileSync(file, stringify({ ...lab, name: `${lab.name}-${host.name}`, hosts: [host] }));
    return { host: host.name, file };
  });
  // Warm the image caches so `all` and `up` measure the lab, not the one-time builds.
  must('warm-up up', await layerlab('up', '--lab', single[0].file));
  must('warm-up down', await layerlab('down', '--lab', single[0].file));

  const upAlone: { host: string; seconds: number }[] = [];
  for (const { host, file } of single) {
    upAlone.push({ host, seconds: must(`up (${host} alone)`, await layerlab('up', '--lab', file)).seconds });
    must(`down (${host} alone)`, await layerlab('down', '--lab', file));
  }
  const upTwo = must('up (all hosts)', await layerlab('up', '--lab', labFile));
  must('down (all hosts)', await layerlab('down', '--lab', labFile));
  const slowest = Math.max(...upAlone.map((u) => u.seconds));

  const row = (name: string, value: string, goal: string) =>
    console.log(`${name.padEnd(44)} ${value.padStart(10)}   ${goal}`);
  const upRows = () => {
    for (const u of upAlone) row(`up, ${u.host} alone (s)`, u.seconds.toFixed(1), '');
    row(`up, ${lab.hosts.length} hosts in parallel (s)`, upTwo.seconds.toFixed(1), '');
    row(`up ratio ${lab.hosts.length} hosts / slowest alone`, (upTwo.seconds / slowest).toFixed(2), 'goal <= 1.3');
  };
  if (upOnly) upRows();
  else await allRows();

  async function allRows(): Promise<void> {
    const all = must('all', await layerlab('all', '--lab', labFile));
    const runId = readdirSync(env.LAYERLAB_RESULTS)
      .filter((d) => existsSync(join(env.LAYERLAB_RESULTS, d, 'summary.json')))
      .sort()
      .pop() as string;
    const summary = JSON.parse(readFileSync(join(env.LAYERLAB_RESULTS, runId, 'summary.json'), 'utf8'));
    const overhead = (summary.wallSeconds - summary.guestSeconds) / summary.wallSeconds;
    const peakMB = Math.max(all.peakRssKiB, upTwo.peakRssKiB) / 1024;

    console.log(`layerlab bench: ${labFile} (${summary.trials} trials, accel ${process.env.LAYERLAB_ACCEL ?? 'auto'})`);
    row('wall time of `all` (s)', all.seconds.toFixed(1), '');
    row('  of which run (s)', summary.wallSeconds.toFixed(1), '');
    row('  guest scenario scripts (s)', summary.guestSeconds.toFixed(1), '');
    row('harness overhead ratio', overhead.toFixed(3), 'goal <= 0.10');
    upRows();
    row('controller peak RSS (MB)', peakMB.toFixed(0), 'goal <= 300');
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
