/**
 * Benchmarks the harness on labs/quick.yaml (real VMs) and prints, from one run:
 *   - wall time of `layerlab all`
 *   - harness overhead: controller time outside the guest scenario scripts
 *     (SSH setup, push, pull, parsing) / run wall, trials one at a time; goal <= 0.10
 *   - wall-time ratio of `up` for 2 hosts vs 1 host (parallel boot+prepare); goal <= 1.3
 *   - the controller's peak RSS (VmHWM); goal <= 300 MB
 * Usage: npm run bench [-- labs/other.yaml]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'layerlab.js');
const labFile = resolve(process.argv[2] ?? join(ROOT, 'labs', 'quick.yaml'));
const work = mkdtempSync(join(tmpdir(), 'layerlab-bench-'));
const env = { ...process.env, LAYERLAB_HOME: join(work, 'state'), LAYERLAB_RESULTS: join(work, 'results') };

interface Timed {
  code: number | null;
  seconds: number;
  peakRssKiB: number;
}

/** Runs the CLI, timing it and sampling its peak RSS (VmHWM) from /proc. */
function layerlab(...args: string[]): Promise<Timed> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  let peak = 0;
  const poll = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]));
    } catch {
      // exited
    }
  }, 100);
  return new Promise((done) => {
    child.on('close', (code) => {
      clearInterval(poll);
      done({ code, seconds: Number(process.hrtime.bigint() - started) / 1e9, peakRssKiB: peak });
    });
  });
}

function must(step: string, r: Timed): Timed {
  if (r.code !== 0) throw new Error(`${step} exited with ${r.code}`);
  return r;
}

try {
  const lab = parse(readFileSync(labFile, 'utf8'));
  // Warm the image caches so `all` and `up` measure the lab, not the one-time builds.
  const oneHost = join(work, 'one-host.yaml');
  writeFileSync(oneHost, stringify({ ...lab, name: `${lab.name}-one`, hosts: lab.hosts.slice(0, 1) }));
  must('warm-up up', await layerlab('up', '--lab', oneHost));
  must('warm-up down', await layerlab('down', '--lab', oneHost));

  const upOne = must('up (1 host)', await layerlab('up', '--lab', oneHost));
  must('down (1 host)', await layerlab('down', '--lab', oneHost));
  const upTwo = must('up (2 hosts)', await layerlab('up', '--lab', labFile));
  must('down (2 hosts)', await layerlab('down', '--lab', labFile));

  const all = must('all', await layerlab('all', '--lab', labFile));
  const runId = readdirSync(env.LAYERLAB_RESULTS).sort().pop() as string;
  const summary = JSON.parse(readFileSync(join(env.LAYERLAB_RESULTS, runId, 'summary.json'), 'utf8'));
  const overhead = (summary.wallSeconds - summary.guestSeconds) / summary.wallSeconds;
  const peakMB = Math.max(all.peakRssKiB, upTwo.peakRssKiB) / 1024;

  const row = (name: string, value: string, goal: string) =>
    console.log(`${name.padEnd(44)} ${value.padStart(10)}   ${goal}`);
  console.log(`layerlab bench: ${labFile} (${summary.trials} trials, accel ${process.env.LAYERLAB_ACCEL ?? 'auto'})`);
  row('wall time of `all` (s)', all.seconds.toFixed(1), '');
  row('  of which run (s)', summary.wallSeconds.toFixed(1), '');
  row('  guest scenario scripts (s)', summary.guestSeconds.toFixed(1), '');
  row('harness overhead ratio', overhead.toFixed(3), 'goal <= 0.10');
  row('up, 1 host (s)', upOne.seconds.toFixed(1), '');
  row('up, 2 hosts (s)', upTwo.seconds.toFixed(1), '');
  row('up ratio 2 hosts / 1 host', (upTwo.seconds / upOne.seconds).toFixed(2), 'goal <= 1.3');
  row('controller peak RSS (MB)', peakMB.toFixed(0), 'goal <= 300');
} finally {
  rmSync(work, { recursive: true, force: true });
}
