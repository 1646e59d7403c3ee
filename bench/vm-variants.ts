/**
 * Two variants of the local target's VMs, side by side, in one run on
 * labs/quick.yaml at two repetitions (12 fio trials on two hosts; real VMs,
 * meant for a machine without KVM):
 *   --knob tcg-cache  target.local.tcgCacheMiB 256 vs 1024 (QEMU's tb-size)
 *   --knob cpus       every host's cpus 2 vs 1
 *   --knob disk-aio   target.local.diskAio native vs threads (QEMU's aio= of
 *                     both disks, cache=none either way)
 * For each variant: one `up --cold` (boot + prepare, which also keeps the
 * templates), then `run`s restored from those templates in pairs whose order
 * alternates (A B, B A, ...). Each step reports its wall and the CPU seconds
 * its qemu processes used (what counts when several labs share the cores, as
 * test:e2e's files do); after each run, QEMU's own count of code-cache flushes
 * (`info jit` over QMP), each qemu's peak RSS and its data disk's mean
 * milliseconds per read and per write with the failed requests
 * (`query-blockstats`; a restored VM counts from its restore).
 * Usage: npm run bench:vm-variants -- --knob tcg-cache|cpus|disk-aio [--pairs N] (default 2)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { describe } from '../lab/analyze/stats.ts';
import { Qmp } from '../lab/targets/local/qmp.ts';
import { readLocalState } from '../lab/targets/local/state.ts';
import { cpuSecondsOf, procStatFields } from '../lab/util/proc.ts';
import { flagValue } from './args.ts';
import { type DriveIo, driveIo } from './blockstats.ts';
import { peakRssKiB, timedLayerlab } from './timed-cli.ts';

type Lab = Record<string, unknown> & { target?: { local?: object }; hosts: object[] };
interface Variant {
  label: string;
  apply: (lab: Lab) => Lab;
}

/** The lab with these target.local settings. */
const withLocal = (local: object) => (lab: Lab) => ({
  ...lab,
  target: { ...lab.target, local: { ...lab.target?.local, ...local } },
});

const KNOBS: Record<string, [Variant, Variant]> = {
  'tcg-cache': [256, 1024].map((size) => ({
    label: `tcgCacheMiB ${size}`,
    apply: withLocal({ tcgCacheMiB: size }),
  })) as [Variant, Variant],
  cpus: [2, 1].map((cpus) => ({
    label: `cpus ${cpus}`,
    apply: (lab: Lab) => ({ ...lab, hosts: lab.hosts.map((h) => ({ ...h, cpus })) }),
  })) as [Variant, Variant],
  'disk-aio': ['native', 'threads'].map((diskAio) => ({
    label: `diskAio ${diskAio}`,
    apply: withLocal({ diskAio }),
  })) as [Variant, Variant],
};

const knob = KNOBS[flagValue('--knob') ?? ''];
const pairs = Number(flagValue('--pairs') ?? 2);
if (!knob || !Number.isInteger(pairs) || pairs < 1) {
  console.error(`usage: npm run bench:vm-variants -- --knob ${Object.keys(KNOBS).join('|')} [--pairs N]   (N >= 1)`);
  process.exit(2);
}
const NAME = 'vmvariants';
const work = mkdtempSync(join(tmpdir(), 'layerlab-vmvariants-'));
// Set here too, so that readLocalState in this process reads the lab's state.
process.env.LAYERLAB_HOME = join(work, 'state');
const env = { ...process.env, LAYERLAB_RESULTS: join(work, 'results') };

/** labs/quick.yaml at two repetitions, as this variant changes it. */
function labFile(v: Variant, index: number): string {
  const quick = parse(readFileSync(join(resolve(import.meta.dirname, '..'), 'labs', 'quick.yaml'), 'utf8')) as Lab;
  const file = join(work, `lab-${index}.yaml`);
  writeFileSync(file, stringify(v.apply({ ...quick, name: NAME, repetitions: 2 })));
  return file;
}

/** The lab's running qemu processes as its state records them (none once it is down). */
function vms(): { dir: string; pid: number }[] {
  return Object.values(readLocalState(NAME)?.hosts ?? {}).flatMap(({ dir, pid }) =>
    pid && procStatFields(pid) ? [{ dir, pid }] : [],
  );
}

/** CPU seconds (user + system) the lab's qemu processes have used so far. */
function qemuCpuSeconds(): number {
  return vms().reduce((sum, { pid }) => sum + cpuSecondsOf(procStatFields(pid) ?? []), 0);
}

interface Step {
  wall: number;
  qemuCpu: number;
}

/** One layerlab command; its wall and what the lab's qemus used meanwhile (they may start during it). */
async function step(what: string, ...args: string[]): Promise<Step> {
  const before = qemuCpuSeconds();
  const r = await timedLayerlab(env, ...args);
  if (r.code !== 0) throw new Error(`${what} (layerlab ${args.join(' ')}) exited with ${r.code}`);
  return { wall: r.seconds, qemuCpu: qemuCpuSeconds() - before };
}

interface RunSample extends Step {
  flushes: number[];
  peakRssMiB: number[];
  /** Each host's data disk as QEMU counted it (undefined: QEMU did not name the drive). */
  dataDisk: (DriveIo | undefined)[];
}

async function qemuFacts(): Promise<Pick<RunSample, 'flushes' | 'peakRssMiB' | 'dataDisk'>> {
  const flushes: number[] = [];
  const peakRssMiB: number[] = [];
  const dataDisk: (DriveIo | undefined)[] = [];
  for (const vm of vms()) {
    const qmp = await Qmp.connect(join(vm.dir, 'qmp.sock'));
    try {
      const jit = await qmp.execute<string>('human-monitor-command', { 'command-line': 'info jit' });
      flushes.push(Number(/TB flush count\s+(\d+)/.exec(jit)?.[1] ?? Number.NaN));
      dataDisk.push(driveIo(await qmp.execute('query-blockstats'), 'data'));
    } finally {
      qmp.close();
    }
    peakRssMiB.push(Math.round((peakRssKiB(vm.pid) ?? Number.NaN) / 1024));
  }
  return { flushes, peakRssMiB, dataDisk };
}

/** `up` from the variant's templates, `run`, facts, `down`. */
async function runFromTemplates(lab: string): Promise<RunSample> {
  await step('up', 'up', '--lab', lab);
  try {
    const run = await step('run', 'run', '--lab', lab);
    return { ...run, ...(await qemuFacts()) };
  } finally {
    await step('down', 'down', '--lab', lab);
  }
}

const fmt = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(' ');
/** One figure per host, hosts joined by '/', runs by ' ' (as the flushes row). */
const perHost = (r: RunSample[], f: (d: DriveIo) => string) =>
  r.map((x) => x.dataDisk.map((d) => (d ? f(d) : '?')).join('/')).join(' ');
const row = (name: string, value: string) => console.log(`${name.padEnd(44)} ${value}`);
const median = (xs: number[]) => describe(xs).median;

try {
  const labs = knob.map(labFile);
  // Builds or warms the image caches, so no build lands in a timed step.
  await step('warm-up', 'up', '--lab', labs[0] as string, '--cold');
  await step('warm-up down', 'down', '--name', NAME);
  const cold: Step[] = [];
  for (const lab of labs) {
    cold.push(await step('up --cold', 'up', '--lab', lab, '--cold'));
    await step('down', 'down', '--name', NAME);
  }
  const runs: RunSample[][] = [[], []];
  for (let p = 0; p < pairs; p++)
    for (const i of p % 2 ? [1, 0] : [0, 1]) runs[i]?.push(await runFromTemplates(labs[i] as string));

  console.log(`layerlab bench vm-variants: labs/quick.yaml at 2 repetitions, ${pairs} pair(s)`);
  knob.forEach((v, i) => {
    const c = cold[i] as Step;
    const r = runs[i] as RunSample[];
    row(`${v.label}: up --cold, wall / qemu CPU (s)`, `${c.wall.toFixed(1)} / ${c.qemuCpu.toFixed(1)}`);
    row('  run wall (s), each', fmt(r.map((x) => x.wall)));
    row('  run qemu CPU (s), each', fmt(r.map((x) => x.qemuCpu)));
    row('  code-cache flushes per host, each run', r.map((x) => x.flushes.join('/')).join(' '));
    row('  qemu peak RSS per host (MiB), each run', r.map((x) => x.peakRssMiB.join('/')).join(' '));
    row(
      '  data disk ms per read at QEMU, each run',
      perHost(r, (d) => d.readMs.toFixed(2)),
    );
    row(
      '  data disk ms per write at QEMU, each run',
      perHost(r, (d) => d.writeMs.toFixed(2)),
    );
    row(
      '  data disk failed requests, each run',
      perHost(r, (d) => String(d.failed)),
    );
  });
  const [a, b] = runs as [RunSample[], RunSample[]];
  const ratio = (f: (x: RunSample) => number) => a.map((x, i) => f(b[i] as RunSample) / f(x));
  const [ca, cb] = cold as [Step, Step];
  row(`ratios ${knob[1].label} / ${knob[0].label}:`, '');
  row('  up --cold wall, qemu CPU', `${(cb.wall / ca.wall).toFixed(3)}, ${(cb.qemuCpu / ca.qemuCpu).toFixed(3)}`);
  row(
    '  run wall, each pair',
    ratio((x) => x.wall)
      .map((x) => x.toFixed(3))
      .join(' '),
  );
  row(
    '  run qemu CPU, each pair',
    ratio((x) => x.qemuCpu)
      .map((x) => x.toFixed(3))
      .join(' '),
  );
  row('  run wall, of the medians', (median(b.map((x) => x.wall)) / median(a.map((x) => x.wall))).toFixed(3));
} finally {
  await timedLayerlab(env, 'down', '--name', NAME);
  rmSync(work, { recursive: true, force: true });
}
