/**
 * What TCG's translated-code cache size (lab `target.local.tcgCacheMiB`,
 * QEMU's tb-size) does to the local target, in one run on labs/quick.yaml at
 * two repetitions (12 fio trials on two hosts; real VMs, so meant for a
 * machine without KVM):
 *   - `up --cold` (boot + prepare) once under each size
 *   - `run` from templates under each size, in pairs whose order alternates
 *     (A B, B A, ...): the run's wall, QEMU's own count of cache flushes
 *     (`info jit` over QMP, after the run) and each qemu's peak RSS
 * Usage: npm run bench:tcg-cache [-- --pairs N] (default 2; sizes 256 and 1024)
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { Qmp } from '../lab/targets/local/qmp.ts';
import { type Timed, timedLayerlab } from './timed-cli.ts';

const ROOT = resolve(import.meta.dirname, '..');
const SIZES = [256, 1024] as const;
const pairsArg = process.argv.indexOf('--pairs');
const pairs = pairsArg > 0 ? Number(process.argv[pairsArg + 1]) : 2;
if (!Number.isInteger(pairs) || pairs < 1) {
  console.error('usage: npm run bench:tcg-cache [-- --pairs N]   (N >= 1)');
  process.exit(2);
}
const NAME = 'tcgcache';
const work = mkdtempSync(join(tmpdir(), 'layerlab-tcgcache-'));
const results = join(work, 'results');
const env = { ...process.env, LAYERLAB_HOME: join(work, 'state'), LAYERLAB_RESULTS: results };

/** The quick lab at two repetitions, with this cache size. */
function labFile(size: number): string {
  const quick = parse(readFileSync(join(ROOT, 'labs', 'quick.yaml'), 'utf8'));
  const file = join(work, `lab-${size}.yaml`);
  const target = { ...quick.target, local: { ...quick.target?.local, tcgCacheMiB: size } };
  writeFileSync(file, stringify({ ...quick, name: NAME, target, repetitions: 2 }));
  return file;
}

async function step(what: string, ...args: string[]): Promise<Timed> {
  const r = await timedLayerlab(env, ...args);
  if (r.code !== 0) throw new Error(`${what} (layerlab ${args.join(' ')}) exited with ${r.code}`);
  return r;
}

interface Sample {
  wall: number;
  flushes: number[];
  peakRssMiB: number[];
}

/** After a run, with the lab still up: QEMU's flush count and peak RSS of each host. */
async function vmFacts(): Promise<Pick<Sample, 'flushes' | 'peakRssMiB'>> {
  const state = JSON.parse(readFileSync(join(work, 'state', 'labs', NAME, 'state.json'), 'utf8'));
  const hosts = Object.values(state.hosts as Record<string, { dir: string; pid: number }>);
  const flushes: number[] = [];
  const peakRssMiB: number[] = [];
  for (const h of hosts) {
    const qmp = await Qmp.connect(join(h.dir, 'qmp.sock'));
    try {
      const jit = await qmp.execute<string>('human-monitor-command', { 'command-line': 'info jit' });
      flushes.push(Number(/TB flush count\s+(\d+)/.exec(jit)?.[1] ?? Number.NaN));
    } finally {
      qmp.close();
    }
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${h.pid}/status`, 'utf8'))?.[1];
    peakRssMiB.push(Math.round(Number(hwm) / 1024));
  }
  return { flushes, peakRssMiB };
}

/** The newest run's wall seconds, as its summary records them. */
function newestRunWall(): number {
  const id = readdirSync(results)
    .filter((d) => existsSync(join(results, d, 'summary.json')))
    .sort()
    .pop() as string;
  return JSON.parse(readFileSync(join(results, id, 'summary.json'), 'utf8')).wallSeconds;
}

async function runFromTemplates(size: number): Promise<Sample> {
  const lab = labFile(size);
  await step(`up (${size} MiB)`, 'up', '--lab', lab);
  try {
    await step(`run (${size} MiB)`, 'run', '--lab', lab);
    return { wall: newestRunWall(), ...(await vmFacts()) };
  } finally {
    await step('down', 'down', '--lab', lab);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
const row = (name: string, ...values: string[]) => console.log(`${name.padEnd(40)} ${values.join('   ')}`);

try {
  const cold: Record<number, number> = {};
  // The first cold up also builds or warms the image caches: one untimed round first.
  await step('warm-up', 'up', '--lab', labFile(SIZES[0]), '--cold');
  await step('warm-up down', 'down', '--name', NAME);
  for (const size of SIZES) {
    cold[size] = (await step(`up --cold (${size} MiB)`, 'up', '--lab', labFile(size), '--cold')).seconds;
    await step('down', 'down', '--name', NAME);
  }
  const samples: Record<number, Sample[]> = { [SIZES[0]]: [], [SIZES[1]]: [] };
  for (let p = 0; p < pairs; p++) {
    const order = p % 2 ? [...SIZES].reverse() : [...SIZES];
    for (const size of order) samples[size]?.push(await runFromTemplates(size));
  }
  console.log(
    `layerlab bench tcg-cache: labs/quick.yaml at 2 repetitions, ${pairs} pair(s), sizes ${SIZES.join(' and ')} MiB`,
  );
  for (const size of SIZES) {
    const s = samples[size] as Sample[];
    row(`tb-size ${size} MiB: up --cold (s)`, cold[size]?.toFixed(1) ?? '');
    row('  run wall (s), each', s.map((x) => x.wall.toFixed(1)).join(' '));
    row('  cache flushes per host, each run', s.map((x) => x.flushes.join('/')).join(' '));
    row('  qemu peak RSS per host (MiB)', s.map((x) => x.peakRssMiB.join('/')).join(' '));
  }
  const [small, large] = SIZES.map((size) => (samples[size] as Sample[]).map((x) => x.wall));
  const paired = (small as number[]).map((w, i) => ((large as number[])[i] as number) / w);
  row(`run wall ratio ${SIZES[1]}/${SIZES[0]}, each pair`, paired.map((r) => r.toFixed(3)).join(' '));
  row('  ratio of the medians', (median(large as number[]) / median(small as number[])).toFixed(3));
  row(`up --cold ratio ${SIZES[1]}/${SIZES[0]}`, ((cold[SIZES[1]] as number) / (cold[SIZES[0]] as number)).toFixed(3));
} finally {
  await timedLayerlab(env, 'down', '--name', NAME);
  rmSync(work, { recursive: true, force: true });
}
