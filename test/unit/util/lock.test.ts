/**
 * Issue 12, controller side: names from the command line never reach outside
 * the state folder (finding 1), labs and run folders are locked against a
 * second layerlab process (finding 8), a recorded pid is ours only when its
 * start time and arguments say so (finding 9), and the state and results
 * folders are created private (0700). Everything runs against real processes
 * and the real CLI in a temporary folder; nothing boots a VM or leaves 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadLabDefinition } from '../../../lab/definition/load.ts';
import { toolImageNames } from '../../../lab/phases/tool-images.ts';
import { makePlan } from '../../../lab/plan/plan.ts';
import { createRunDir } from '../../../lab/record/layout.ts';
import { controllerSources, toolImageTag } from '../../../lab/toolimages/toolimages.ts';
import { isOurProcess } from '../../../lab/util/proc.ts';

const BIN = resolve(import.meta.dirname, '..', '..', '..', 'bin', 'layerlab.js');
const QUICK = resolve(import.meta.dirname, '..', '..', '..', 'labs', 'quick.yaml');
const work = mkdtempSync(join(tmpdir(), 'layerlab-security-state-'));
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

interface Env {
  home: string;
  results: string;
  cwd: string;
}

/** A fresh LAYERLAB_HOME, results folder and working directory for one case. */
function sandbox(name: string): Env {
  const base = join(work, name);
  const env = { home: join(base, 'x', '.layerlab'), results: join(base, 'r', 'results'), cwd: join(base, 'a', 'b') };
  mkdirSync(env.cwd, { recursive: true });
  return env;
}

function layerlab(env: Env, ...args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], {
    cwd: env.cwd,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, LAYERLAB_HOME: env.home, LAYERLAB_RESULTS: env.results },
  });
}

function layerlabAsync(env: Env, ...args: string[]): ChildProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: env.cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LAYERLAB_HOME: env.home, LAYERLAB_RESULTS: env.results },
  });
  children.push(child);
  return child;
}

/** A long-lived process with the given arguments, standing in for a VM or an innocent bystander. */
function sleeper(...args: string[]): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', ...args], { stdio: 'ignore' });
  children.push(child);
  return child;
}

/**
 * A "VM" whose QEMU monitor answers but whose guest never powers off: down
 * asks it through monitor.sock and waits out the grace period, holding the
 * lab's lock all that time (as a real slow guest would).
 */
function slowVm(hostDir: string): ChildProcess {
  mkdirSync(hostDir, { recursive: true });
  const script = `require('node:net').createServer((c) => c.resume()).listen(${JSON.stringify(join(hostDir, 'monitor.sock'))})`;
  const child = spawn(process.execPath, ['-e', script, hostDir], { stdio: 'ignore' });
  children.push(child);
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once('exit', () => r()));
}

/** /proc/<pid>/stat field 22 (start time in clock ticks since boot), read here independently of lab/. */
function startTicksOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
}

/** A pid that is certainly not running: a process that already exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

/** A local lab's state folder with state.json naming the given host processes. */
function writeLab(env: Env, lab: string, hosts: { name: string; pid?: number; pidStart?: string }[]): string {
  const dir = join(env.home, 'labs', lab);
  const state = {
    lab,
    labFile: '/nowhere.yaml',
    createdAt: new Date().toISOString(),
    hosts: Object.fromEntries(
      hosts.map((h) => [h.name, { profile: 'overlay2-xfs', dir: join(dir, 'hosts', h.name), ...h }]),
    ),
  };
  mkdirSync(dir, { recursive: true });
  for (const h of hosts) mkdirSync(join(dir, 'hosts', h.name), { recursive: true });
  writeFileSync(join(dir, 'state.json'), JSON.stringify(state));
  return dir;
}

/** The lock file another layerlab process would hold on `lab`. */
function holdLab(env: Env, lab: string, holder: { pid: number; startTicks: string }, since = '2026-12-01T10:00:00Z') {
  mkdirSync(join(env.home, 'locks'), { recursive: true });
  writeFileSync(join(env.home, 'locks', `${lab}.lock`), JSON.stringify({ ...holder, since, command: 'layerlab up' }));
}

async function waitFor(what: string, ok: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('finding 1: names from the command line stay inside the state folder', () => {
  it('down --name ../.. is exit 2 naming --name, and deletes nothing', () => {
    const env = sandbox('dotdot');
    const marker = join(env.home, '..', 'marker');
    mkdirSync(join(env.home, 'labs', 'other'), { recursive: true });
    writeFileSync(marker, 'not layerlab’s');
    const r = layerlab(env, 'down', '--name', '../..');
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--name: expected a name of lowercase letters, digits and "-".*got "\.\.\/\.\."/);
    assert.ok(existsSync(marker), 'the folder above LAYERLAB_HOME survives');
    assert.ok(existsSync(join(env.home, 'labs', 'other')), 'other labs survive');
  });

  it('down --name . is exit 2 and every lab keeps its disks and keys', () => {
    const env = sandbox('dot');
    const key = join(env.home, 'labs', 'other', 'hosts', 'a', 'id_ed25519');
    mkdirSync(join(key, '..'), { recursive: true });
    writeFileSync(key, 'key');
    for (const name of ['.', '', 'Quick', 'a/b']) {
      const r = layerlab(env, 'down', '--name', name);
      assert.equal(r.status, 2, `down --name ${JSON.stringify(name)}: ${r.stderr}`);
      assert.match(r.stderr, /--name: expected a name/);
    }
    assert.ok(existsSync(key), 'the other lab’s key survives');
  });

  it('--stack is a name too: exit 2 naming --stack before anything else is looked at', () => {
    const env = sandbox('stack');
    const r = layerlab(env, 'down', '--target', 'aws', '--lab', QUICK, '--stack', '../../x');
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--stack: expected a name/);
  });

  it('run ids of report, compare and run --resume are refused when they would leave the results folder', () => {
    const env = sandbox('runref');
    // A folder beside results/ that looks like a run: `../outside` from results/ reaches it.
    const outside = join(env.results, '..', 'outside');
    mkdirSync(join(outside, 'trials', 't1'), { recursive: true });
    writeFileSync(join(outside, 'manifest.json'), JSON.stringify({ runId: 'outside', lab: { name: 'other' } }));
    writeFileSync(join(outside, 'plan.json'), JSON.stringify({ seed: 1, mode: 'serial', trials: [] }));
    const before = readdirSync(outside).sort();
    for (const [args, option] of [
      [['report', '../outside'], 'report <run>'],
      [['compare', '../outside', '../outside'], 'compare <old>'],
      [['run', '--resume', '../outside', '--lab', QUICK], '--resume'],
    ] as const) {
      const r = layerlab(env, ...args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`${option.replace(/[<>]/g, '.')}: expected a run id`), args.join(' '));
    }
    assert.deepEqual(readdirSync(outside).sort(), before, 'nothing was written into the folder outside results/');
    assert.ok(existsSync(join(outside, 'trials', 't1')), 'no trial folder outside results/ was deleted');
  });

  it('lab state is deleted only as a direct child of the labs folder, never through a symlink', async () => {
    const { removeOwnedChild } = await import('../../../lab/util/owned-dir.ts');
    const parent = join(work, 'owned', 'labs');
    const victim = join(work, 'owned', 'victim');
    mkdirSync(join(parent, 'real', 'hosts'), { recursive: true });
    mkdirSync(victim, { recursive: true });
    writeFileSync(join(victim, 'keep'), 'x');
    symlinkSync(victim, join(parent, 'link'));
    for (const name of ['..', '.', '', '../victim', 'real/hosts', 'link']) {
      await assert.rejects(removeOwnedChild(parent, name), /refusing to delete/, `name ${JSON.stringify(name)}`);
    }
    assert.ok(existsSync(join(victim, 'keep')), 'the symlink target survives');
    assert.ok(existsSync(join(parent, 'real', 'hosts')), 'nothing was deleted by a refused name');
    await removeOwnedChild(parent, 'real');
    assert.ok(!existsSync(join(parent, 'real')), 'a real child is deleted');
    await removeOwnedChild(parent, 'never-was'); // nothing to do is fine
  });
});

describe('finding 8: one layerlab process per lab and per run folder', () => {
  it('down and sweep of a lab another process holds: exit 2 naming pid and time; sweep skips it', () => {
    const env = sandbox('held');
    const dir = writeLab(env, 'held', []);
    holdLab(env, 'held', { pid: process.pid, startTicks: startTicksOf(process.pid) });
    const r = layerlab(env, 'down', '--name', 'held');
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`lab held is in use by pid ${process.pid} since 2026-12-01T10:00:00Z`));
    assert.ok(existsSync(dir), 'the held lab survives down');
    mkdirSync(join(env.home, 'labs', 'held-empty'), { recursive: true });
    holdLab(env, 'held-empty', { pid: process.pid, startTicks: startTicksOf(process.pid) });
    const s = layerlab(env, 'sweep', '--local');
    assert.equal(s.status, 0, s.stderr);
    assert.match(s.stderr, new RegExp(`keep lab held-empty: in use by pid ${process.pid} since`));
    assert.ok(existsSync(join(env.home, 'labs', 'held-empty')), 'sweep leaves a lab that is being set up');
  });

  it('up, all and run of a held lab are exit 2 before anything is checked or started', () => {
    const env = sandbox('held-up');
    holdLab(env, 'quick', { pid: process.pid, startTicks: startTicksOf(process.pid) });
    // Keys that do not exist: on a free lab, preflight would refuse this inventory (and touch no network).
    const inventory = join(env.cwd, 'hosts.yaml');
    const hostKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB4k0vdGxxbXVtbXl0ZXN0a2V5Zm9yaW52ZW50b3J5';
    writeFileSync(
      inventory,
      `hosts:\n  - { name: xfs, profile: overlay2-xfs, address: 127.0.0.1, port: 1, key: nokey, hostKey: "${hostKey}", dataDisk: /dev/vdb }\n  - { name: dm, profile: devicemapper-lvm, address: 127.0.0.1, port: 1, key: nokey, hostKey: "${hostKey}", dataDisk: /dev/vdc }\n`,
    );
    for (const args of [
      ['up', '--lab', QUICK, '--inventory', inventory],
      ['all', '--lab', QUICK, '--inventory', inventory],
      ['run', '--lab', QUICK],
    ]) {
      const r = layerlab(env, ...args);
      assert.equal(r.status, 2, `${args[0]}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`lab quick is in use by pid ${process.pid} since`), args[0]);
    }
    assert.ok(!existsSync(env.results), 'no results folder was created');
  });

  it('run --resume of a run folder another process writes: exit 2, its trials are not touched', async () => {
    const env = sandbox('held-run');
    const lab = await loadLabDefinition(QUICK);
    const { runId, dir } = createRunDir(env.results, lab.name);
    const plan = makePlan(lab);
    const sources = await controllerSources();
    const toolImages = Object.fromEntries(
      await Promise.all(toolImageNames(lab).map(async (n) => [n, await toolImageTag(n, sources)] as const)),
    );
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ runId, labFile: QUICK, lab, toolImages }));
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan));
    const trial = plan.trials[0]?.id ?? 'none';
    mkdirSync(join(dir, 'trials', trial), { recursive: true });
    writeFileSync(join(dir, 'trials', trial, 'fio.json'), '{}');
    writeFileSync(
      join(dir, 'run.lock'),
      JSON.stringify({
        pid: process.pid,
        startTicks: startTicksOf(process.pid),
        since: 'now',
        command: 'layerlab run',
      }),
    );
    const r = layerlab(env, 'run', '--resume', runId, '--lab', QUICK);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`run ${runId} is in use by pid ${process.pid} since now`));
    assert.ok(existsSync(join(dir, 'trials', trial, 'fio.json')), 'the trial in flight of the other process survives');
  });

  it('a second down while one runs is exit 2; Ctrl-C of the first releases its lock', { timeout: 90_000 }, async () => {
    const env = sandbox('busy');
    const dir = join(env.home, 'labs', 'busy');
    const vm = slowVm(join(dir, 'hosts', 'a'));
    await waitFor('the VM’s monitor socket', () => existsSync(join(dir, 'hosts', 'a', 'monitor.sock')));
    writeLab(env, 'busy', [{ name: 'a', pid: vm.pid }]);
    const lock = join(env.home, 'locks', 'busy.lock');
    const first = layerlabAsync(env, 'down', '--name', 'busy');
    try {
      await waitFor('the first down to take the lab’s lock', () => existsSync(lock));
      const holder = JSON.parse(readFileSync(lock, 'utf8')) as { pid: number };
      assert.equal(holder.pid, first.pid, 'the lock names the first down');
      const second = layerlab(env, 'down', '--name', 'busy');
      assert.equal(second.status, 2, second.stderr);
      assert.match(second.stderr, new RegExp(`lab busy is in use by pid ${first.pid} since \\d{4}-`));
      const dry = layerlab(env, 'sweep', '--local', '--dry-run');
      assert.match(dry.stderr, new RegExp(`keep lab busy: in use by pid ${first.pid}`));
      first.kill('SIGINT');
      await exited(first);
      assert.ok(!existsSync(lock), 'Ctrl-C released the lock');
      assert.equal(vm.exitCode, null, 'the second down stopped nothing');
    } finally {
      if (first.exitCode === null && first.signalCode === null) first.kill('SIGKILL');
      vm.kill('SIGKILL');
    }
  });

  it('a stale lock (holder dead, or its pid reused by another process) is taken over, then released', () => {
    const env = sandbox('stale');
    const dead = writeLab(env, 'dead-holder', []);
    holdLab(env, 'dead-holder', { pid: deadPid(), startTicks: '1' });
    const reused = writeLab(env, 'reused', []);
    holdLab(env, 'reused', { pid: process.pid, startTicks: '1' });
    for (const [lab, dir] of [
      ['dead-holder', dead],
      ['reused', reused],
    ] as const) {
      const r = layerlab(env, 'down', '--name', lab);
      assert.equal(r.status, 0, `${lab}: ${r.stderr}`);
      assert.ok(!existsSync(dir), `${lab}: removed`);
      assert.ok(!existsSync(join(env.home, 'locks', `${lab}.lock`)), `${lab}: lock released`);
    }
  });
});

describe('finding 9: a recorded pid is ours by start time and whole arguments', () => {
  it('a process naming <dir>.log or <dir>2/ is not the process of <dir>', async () => {
    const dir = join(work, 'pid', 'hosts', 'xfs');
    const log = sleeper(`${dir}.log`);
    const sibling = sleeper(`${dir}2/console.log`);
    const vm = sleeper(`file=${join(dir, 'root.qcow2')},if=none,id=root`); // as qemu's -drive names it
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(isOurProcess(log.pid ?? 0, dir), false, '<dir>.log is another file');
    assert.equal(isOurProcess(sibling.pid ?? 0, dir), false, '<dir>2/ is another folder');
    assert.equal(isOurProcess(vm.pid ?? 0, dir), true, 'a file inside <dir> names it');
  });

  it('the start time recorded at launch decides: same arguments, other start time → not ours', async () => {
    const dir = join(work, 'pid2', 'hosts', 'xfs');
    const vm = sleeper(dir);
    await new Promise((r) => setTimeout(r, 200));
    const pid = vm.pid ?? 0;
    assert.equal(isOurProcess(pid, dir, startTicksOf(pid)), true, 'recorded start time matches');
    assert.equal(isOurProcess(pid, dir, String(Number(startTicksOf(pid)) + 1)), false, 'a reused pid');
  });

  it('down stops no bystander: neither one naming <dir>.log nor one started after the recorded VM', async () => {
    const env = sandbox('bystander');
    const dir = join(env.home, 'labs', 'by');
    const logTail = sleeper(`${join(dir, 'hosts', 'a')}.log`);
    const reuser = sleeper(join(dir, 'hosts', 'b'));
    await new Promise((r) => setTimeout(r, 200));
    writeLab(env, 'by', [
      { name: 'a', pid: logTail.pid },
      { name: 'b', pid: reuser.pid, pidStart: String(Number(startTicksOf(reuser.pid ?? 0)) - 1) },
    ]);
    const r = layerlab(env, 'down', '--name', 'by');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /a: not-running/);
    assert.match(r.stderr, /b: not-running/);
    assert.equal(logTail.exitCode ?? logTail.signalCode, null, 'the process naming <dir>.log still runs');
    assert.equal(reuser.exitCode ?? reuser.signalCode, null, 'the process with a reused pid still runs');
  });
});

describe('private folders', () => {
  it('the results folder and LAYERLAB_HOME are created 0700', () => {
    const env = sandbox('modes');
    createRunDir(env.results, 'quick');
    assert.equal(statSync(env.results).mode & 0o777, 0o700, 'results/ is 0700');
    const r = layerlab(env, 'down', '--name', 'nothing-here');
    assert.equal(r.status, 0, r.stderr);
    assert.ok(existsSync(env.home), 'the state folder exists after a lab command');
    assert.equal(statSync(env.home).mode & 0o777, 0o700, 'LAYERLAB_HOME is 0700');
  });
});
