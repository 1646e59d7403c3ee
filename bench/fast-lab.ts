/**
 * Issue 16's figures for the local target, from one run on labs/quick.yaml
 * (real VMs; the image caches are warmed first so no build is timed):
 *   - `up --cold` (boot + prepare; keeps each host as a template)
 *   - `up` restored from those templates (goal <= 45 s)
 *   - `all` as `npm run demo` runs it (labs/demo.yaml; goal <= 240 s with warm caches, issue 38),
 *     its harness overhead:
 *     (run wall - guest scenario seconds) / run wall (goal <= 0.05), and the
 *     same per trial
 *   - per-trial wall of fio with its container started through the Engine
 *     API vs `docker run` (LAYERLAB_CONTAINER_START=cli), one host, same trials
 *   - the demo run's trial wall / timed work per scenario, and where the rest
 *     went (bench/trial-time.ts)
 *   - with --fresh, first (printed beside the demo): the demo as a new user
 *     meets it (issue 38), `npm ci && npm run demo` in a clean clone of HEAD
 *     with an empty image cache — every guest and tool image built, hosts
 *     booted cold, templates saved (goal <= 480 s). npm's own package cache
 *     is this machine's. It adds about a quarter of an hour; its run folder
 *     is kept beside the warm demo's.
 * Usage: npm run bench:fast-lab [-- --skip-demo | --demo-only] [--fresh]
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { cleanClone, emptyCacheEnv } from './clean-clone.ts';
import { type Timed, timedCommand, timedLayerlab } from './timed-cli.ts';
import { trialTimeLines } from './trial-time.ts';

const ROOT = resolve(import.meta.dirname, '..');
const QUICK = join(ROOT, 'labs', 'quick.yaml');
// What `npm run demo` runs (scripts/demo.sh).
const DEMO = join(ROOT, 'labs', 'demo.yaml');
const skipDemo = process.argv.includes('--skip-demo');
// The demo alone, as a user with warm caches (and templates) would run it.
const demoOnly = process.argv.includes('--demo-only');
const fresh = process.argv.includes('--fresh');
const work = mkdtempSync(join(tmpdir(), 'layerlab-fastlab-'));
// Kept afterwards: the demo run's report is part of what the bench shows.
const results = mkdtempSync(join(tmpdir(), 'layerlab-fastlab-results-'));
const env = { ...process.env, LAYERLAB_HOME: join(work, 'state'), LAYERLAB_RESULTS: results };
// The fresh demo's own folder (its clone, image cache and lab state: removed after) and results (kept).
const freshWork = join(work, 'fresh');
const freshEnv = {
  ...process.env,
  ...emptyCacheEnv(freshWork),
  LAYERLAB_HOME: join(freshWork, 'state'),
  LAYERLAB_RESULTS: join(results, 'fresh'),
};

function succeeded(what: string, command: string, r: Timed): Timed {
  if (r.code !== 0) throw new Error(`${what} (${command}) exited with ${r.code}`);
  return r;
}

async function step(what: string, extraEnv: NodeJS.ProcessEnv, ...args: string[]): Promise<Timed> {
  return succeeded(what, `layerlab ${args.join(' ')}`, await timedLayerlab({ ...env, ...extraEnv }, ...args));
}

interface Journal {
  state: string;
  wallSeconds?: number;
  guestSeconds?: number;
}

/** The newest run's summary and its done trials' wall and guest seconds (in `root`: this bench's results). */
function newestRun(root = results) {
  // Run folders only (results/ also holds history.sqlite and the fresh demo's results).
  const id = readdirSync(root)
    .filter((d) => existsSync(join(root, d, 'summary.json')))
    .sort()
    .pop() as string;
  const dir = join(root, id);
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  const done = readFileSync(join(dir, 'journal.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Journal)
    .filter((e) => e.state === 'done');
  const mean = (f: (e: Journal) => number) => done.reduce((n, e) => n + f(e), 0) / done.length;
  return {
    id,
    dir,
    summary,
    trials: done.length,
    wallPerTrial: mean((e) => e.wallSeconds ?? 0),
    outsidePerTrial: mean((e) => (e.wallSeconds ?? 0) - (e.guestSeconds ?? 0)),
  };
}

const row = (name: string, value: string, goal = '') =>
  console.log(`${name.padEnd(52)} ${value.padStart(10)}   ${goal}`);

try {
  const freshRun = fresh ? await freshDemo() : undefined;
  if (!demoOnly) await upAndContainerRows();
  if (freshRun) freshRows(freshRun);
  if (!skipDemo) await demoRows();
} finally {
  // A step that failed may have left a lab up: its state is in `work`, so down before removing that.
  for (const name of ['quick', 'fastlab-one', 'demo']) await timedLayerlab(env, 'down', '--name', name);
  if (fresh) await timedLayerlab(freshEnv, 'down', '--name', 'demo');
  rmSync(work, { recursive: true, force: true });
}

interface FreshDemo {
  rev: string;
  npmCi: Timed;
  demo: Timed;
}

/** `npm ci && npm run demo` in a clean clone with an empty image cache, each step timed. */
async function freshDemo(): Promise<FreshDemo> {
  const clone = join(freshWork, 'clone');
  const rev = cleanClone(clone);
  const options = { env: freshEnv, cwd: clone };
  const npmCi = succeeded('fresh: npm ci', 'npm ci', await timedCommand('npm', ['ci'], options));
  const demo = succeeded('fresh: npm run demo', 'npm run demo', await timedCommand('npm', ['run', 'demo'], options));
  return { rev, npmCi, demo };
}

function freshRows({ rev, npmCi, demo }: FreshDemo): void {
  const total = npmCi.seconds + demo.seconds;
  row(`fresh demo at ${rev}: \`npm ci && npm run demo\` (s)`, total.toFixed(1), 'goal <= 480');
  row('  npm ci (s)', npmCi.seconds.toFixed(1));
  row('  npm run demo, empty image cache (s)', demo.seconds.toFixed(1));
  row('  run', newestRun(freshEnv.LAYERLAB_RESULTS).dir);
}

async function upAndContainerRows(): Promise<void> {
  const lab = parse(readFileSync(QUICK, 'utf8'));
  const one = join(work, 'one.yaml');
  writeFileSync(one, stringify({ ...lab, name: 'fastlab-one', hosts: [lab.hosts[0]], repetitions: 3 }));
  // Warm the image caches (guest and tool images) so no build is timed.
  await step('warm-up', {}, 'up', '--lab', one, '--cold');
  await step('warm-up down', {}, 'down', '--lab', one);

  const cold = await step('up --cold', {}, 'up', '--lab', QUICK, '--cold');
  await step('down', {}, 'down', '--lab', QUICK);
  const warm = await step('up from templates', {}, 'up', '--lab', QUICK);
  await step('down', {}, 'down', '--lab', QUICK);

  // Container start, both ways, on the same restored host, same trials.
  await step('up (one host)', {}, 'up', '--lab', one);
  await step('run (Engine API)', {}, 'run', '--lab', one);
  const api = newestRun();
  await step('run (docker run)', { LAYERLAB_CONTAINER_START: 'cli' }, 'run', '--lab', one);
  const cli = newestRun();
  await step('down (one host)', {}, 'down', '--lab', one);

  console.log(`layerlab bench fast-lab: ${QUICK} (accel ${process.env.LAYERLAB_ACCEL ?? 'auto'})`);
  row('up --cold, 2 hosts (s)', cold.seconds.toFixed(1));
  row('up from templates, 2 hosts (s)', warm.seconds.toFixed(1), 'goal <= 45');
  row('  ratio cold / templates', (cold.seconds / warm.seconds).toFixed(1));
  row(`fio trial wall, Engine API (s, mean of ${api.trials})`, api.wallPerTrial.toFixed(2));
  row(`fio trial wall, docker run (s, mean of ${cli.trials})`, cli.wallPerTrial.toFixed(2));
  row('  ratio docker run / Engine API', (cli.wallPerTrial / api.wallPerTrial).toFixed(2));
}

async function demoRows(): Promise<void> {
  const demo = await step('all (the demo)', {}, 'all', '--lab', DEMO);
  const run = newestRun();
  const { wallSeconds, guestSeconds, setupSeconds } = run.summary;
  row('demo: `all --lab labs/demo.yaml` wall (s)', demo.seconds.toFixed(1), 'goal <= 240');
  row('  run wall (s)', wallSeconds.toFixed(1));
  row('  guest scenario scripts (s)', guestSeconds.toFixed(1));
  row('  setup before the first trial (s)', (setupSeconds ?? 0).toFixed(1));
  row(
    '  harness overhead (run wall - guest) / run wall',
    ((wallSeconds - guestSeconds) / wallSeconds).toFixed(3),
    'goal <= 0.05',
  );
  row(`  outside the guest script per trial (s, mean of ${run.trials})`, run.outsidePerTrial.toFixed(2));
  row('  run', run.dir);
  // Issue 38: where each trial's time went; goal for fio at quick's sizes: wall / timed work <= 1.5.
  console.log('trial wall / timed work per scenario (s per trial; goal for fio <= 1.5):');
  for (const line of trialTimeLines(run.dir)) console.log(`  ${line}`);
}
