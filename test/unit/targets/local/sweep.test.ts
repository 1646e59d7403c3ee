/**
 * `layerlab sweep --local` on real processes standing in for VMs: the sweeper
 * must tell orphans (owner gone) and dead labs from labs that are up on purpose,
 * list before deleting, and stop only the recorded pids.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

const BIN = resolve(import.meta.dirname, '..', '..', '..', '..', 'bin', 'layerlab.js');
const work = mkdtempSync(join(tmpdir(), 'layerlab-sweep-'));
const home = join(work, 'state');
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

/** A long-lived process whose command line names `dir`, as a qemu of that VM folder would. */
function fakeVm(dir: string): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', dir], { stdio: 'ignore' });
  children.push(child);
  return child;
}

/** A pid that is certainly not running: a process that already exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

function writeLab(name: string, hosts: { name: string; pid?: number }[], owner?: { pid: number; startTicks: string }) {
  const dir = join(home, 'labs', name);
  const state = {
    lab: name,
    labFile: '/nowhere.yaml',
    createdAt: new Date().toISOString(),
    owner,
    hosts: Object.fromEntries(
      hosts.map((h) => [
        h.name,
        { name: h.name, profile: 'overlay2-xfs', dir: join(dir, 'hosts', h.name), pid: h.pid },
      ]),
    ),
  };
  for (const h of hosts) mkdirSync(join(dir, 'hosts', h.name), { recursive: true });
  writeFileSync(join(dir, 'state.json'), JSON.stringify(state));
  return dir;
}

function sweep(...args: string[]) {
  return spawnSync(process.execPath, [BIN, 'sweep', '--local', ...args], {
    encoding: 'utf8',
    // A cache of its own: the sweep also removes stale images and templates, never this machine's.
    env: { ...process.env, LAYERLAB_HOME: home, LAYERLAB_CACHE: join(work, 'cache') },
  });
}

describe('layerlab sweep --local', () => {
  const orphanVm = fakeVm(join(home, 'labs', 'orphan', 'hosts', 'a'));
  const keptVm = fakeVm(join(home, 'labs', 'kept', 'hosts', 'a'));
  const orphanDir = writeLab('orphan', [{ name: 'a', pid: orphanVm.pid }], { pid: deadPid(), startTicks: '1' });
  const deadDir = writeLab('dead', [{ name: 'a', pid: deadPid() }, { name: 'b' }]);
  const keptDir = writeLab('kept', [{ name: 'a', pid: keptVm.pid }]);
  mkdirSync(join(home, 'labs', 'stray'), { recursive: true });
  // Issue 35 N8: what is not layerlab state stays, and one bad state.json stops no sweep.
  writeFileSync(join(home, 'labs', 'notes.txt'), 'mine');
  mkdirSync(join(home, 'labs', 'Not_A_Lab'), { recursive: true });
  mkdirSync(join(home, 'labs', 'mixed'), { recursive: true });
  writeFileSync(join(home, 'labs', 'mixed', 'my-results.csv'), 'mine');
  mkdirSync(join(home, 'labs', 'broken'), { recursive: true });
  writeFileSync(join(home, 'labs', 'broken', 'state.json'), '{"lab": "broken", ');

  it('--dry-run lists every lab with its reason and removes nothing', () => {
    const r = sweep('--dry-run');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /would remove lab orphan: owner process \d+ is gone; 1 VM\(s\) still running/);
    assert.match(r.stderr, /would remove lab dead: no VM running; 2 host folder\(s\) left/);
    assert.match(r.stderr, /would remove lab stray: state folder without state\.json/);
    assert.match(r.stderr, /keep lab kept: 1 VM\(s\) running, made by `up`: kept/);
    assert.match(r.stderr, /keep lab notes\.txt: .*notes\.txt is not a lab state folder: left alone/);
    assert.match(r.stderr, /keep lab Not_A_Lab: .* is not a lab state folder/);
    assert.match(r.stderr, /keep lab mixed: state folder holds files layerlab does not make \(my-results\.csv\): kept/);
    assert.match(r.stderr, /keep lab broken: .*broken\/state\.json cannot be read .*: kept; fix or remove it by hand/);
    assert.ok(
      existsSync(orphanDir) && existsSync(deadDir) && existsSync(keptDir),
      'existsSync(orphanDir) && existsSync(deadDir) && existsSync(keptDir)',
    );
    assert.equal(orphanVm.exitCode, null);
  });

  it(
    'removes orphans and dead labs, stops only the orphan VM, keeps the lab that is up',
    { timeout: 60_000 },
    async () => {
      const exited = new Promise((r) => orphanVm.once('exit', r));
      const r = sweep();
      assert.equal(r.status, 0, r.stderr);
      await exited;
      assert.ok(
        !existsSync(orphanDir) && !existsSync(deadDir) && !existsSync(join(home, 'labs', 'stray')),
        "!existsSync(orphanDir) && !existsSync(deadDir) && !existsSync(join(home, 'labs', 'stray'))",
      );
      assert.ok(existsSync(keptDir), 'existsSync(keptDir)');
      for (const mine of ['notes.txt', 'Not_A_Lab', join('mixed', 'my-results.csv'), join('broken', 'state.json')])
        assert.ok(existsSync(join(home, 'labs', mine)), `${mine} is not layerlab's to sweep`);
      assert.equal(keptVm.exitCode, null, 'the VM of a lab that is up keeps running');
      assert.equal(keptVm.signalCode, null);
      assert.match(sweep('--dry-run').stderr, /keep lab kept/);
    },
  );
});
