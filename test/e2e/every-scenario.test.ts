/**
 * Every scenario on a real local VM at tiny sizes, on every mount kind it
 * supports, the shared folders included (hostshare over virtiofs,
 * hostshare-nfs from nfs-ganesha on this machine, hostshare-9p from QEMU on
 * Debian's generic kernel): `layerlab all`, then
 * assertions on the samples, the report's sections and seed claims, `layerlab
 * parse` of each raw file, and that nothing is left running: no VM, no share
 * server, no socat forwarding to it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Sample } from '../../lab/record/samples.ts';
import { SCENARIOS } from '../../lab/scenarios/index.ts';
import { isMountPoint } from '../../lab/targets/local/nfs-server.ts';
import { isOurProcess } from '../../lab/util/proc.ts';
import { markdownText } from '../../lab/util/safe-text.ts';
import { cliRunner } from './cli.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-e2e-every-scenario-'));
const stateDir = join(work, 'state');
const resultsDir = join(work, 'results');
const LAB = 'sc';
const labFile = join(work, 'sc.yaml');
writeFileSync(
  labFile,
  `name: ${LAB}
seed: 11
target: { local: { bootTimeoutSec: 900 } } # test:e2e runs two files at once: a boot may share 2 cores with 4 other VMs
hosts: # one vCPU each: test:e2e has up to five VMs on two cores at once; a cold up costs a third less CPU with one, a run a tenth more (README, Development)
  - { name: a, profile: overlay2-xfs, cpus: 1, diskGiB: 3 }
scenarios:
  fio: { size: 8M, runtime: 1, ramp: 0, iodepth: 4 }
  dbench: { clients: 2, duration: 3 }
  db-import: { size: 128k }
  lifecycle: { containers: 3, churnContainers: 1 } # the churn is most of the trial: with two, install 64 s and remove 40 s of 152 (test/fixtures/lifecycle)
  permissions: {}
  lifetime: {}
  backup: { largeFiles: 20, largeSize: 64k, smallFiles: 200, smallSize: 200 }
mounts: [layer, volume, bind, hostshare, hostshare-nfs, hostshare-9p]
repetitions: 1
`,
);
/** Pids of running processes with an argument that is `arg` or starts with `arg,` (socat's address options). */
function processesNaming(arg: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
        return argv.some((a) => a === arg || a.startsWith(`${arg},`));
      } catch {
        return false;
      }
    })
    .map(Number);
}

const env = { ...process.env, LAYERLAB_HOME: stateDir, LAYERLAB_RESULTS: resultsDir };
const layerlab = cliRunner(work, env);

type HostState = { name: string; dir: string; pid?: number; sharePid?: number; nfsPid?: number; nfsPort?: number };
const SHARED = ['hostshare', 'hostshare-nfs', 'hostshare-9p'];
const ALL_MOUNTS = ['layer', 'volume', 'bind', ...SHARED];
let recorded: HostState[] = [];
const statePath = join(stateDir, 'labs', LAB, 'state.json');

after(async () => {
  if (existsSync(statePath)) await layerlab('down', '--name', LAB);
  for (const h of recorded) {
    if (h.pid && isOurProcess(h.pid, h.dir)) process.kill(h.pid, 'SIGKILL');
    if (h.sharePid && isOurProcess(h.sharePid, h.dir)) process.kill(h.sharePid, 'SIGKILL');
    if (h.nfsPid && isOurProcess(h.nfsPid, h.dir)) process.kill(h.nfsPid, 'SIGKILL');
    // Before the folder goes: rm would empty the export and then fail on its mount point.
    const exported = join(h.dir, 'nfs-share');
    if (isMountPoint(exported)) spawnSync('umount', ['-l', exported]);
  }
  rmSync(work, { recursive: true, force: true });
});

describe('every scenario on a real VM', { timeout: 60 * 60_000 }, () => {
  let dir = '';
  let samples: Sample[] = [];
  const of = (scenario: string, metric: string, mount?: string) =>
    samples.filter((s) => s.scenario === scenario && s.metric === metric && (!mount || s.mount === mount));

  it('all: up (with a virtiofs share, an NFS server and a 9p folder), 22 trials, report, down', async () => {
    const r = await layerlab('all', '--lab', labFile, '--keep');
    assert.equal(r.code, 0, r.stderr.slice(-3000));
    recorded = Object.values(JSON.parse(readFileSync(statePath, 'utf8')).hosts as Record<string, HostState>);
    assert.ok(
      recorded.every((h) => h.sharePid && isOurProcess(h.sharePid, h.dir)),
      'virtiofsd runs beside the VM while the lab is up',
    );
    assert.ok(
      recorded.every((h) => h.nfsPid && isOurProcess(h.nfsPid, h.dir) && h.nfsPort),
      'nfs-ganesha runs beside the VM while the lab is up',
    );
    const mounted = readFileSync('/proc/self/mountinfo', 'utf8');
    assert.ok(
      recorded.every((h) => mounted.includes(`${h.dir}/nfs-share `)),
      "the NFS export is a file system of its own, mounted in the VM's state folder",
    );
    const [runId] = readdirSync(resultsDir).filter((d) => d.includes(LAB));
    assert.ok(runId, 'a run folder');
    dir = join(resultsDir, runId);
    samples = readFileSync(join(dir, 'samples.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Sample);
    const kernel = readFileSync(join(dir, 'hosts', 'a', 'env', 'kernel.txt'), 'utf8');
    assert.doesNotMatch(
      kernel,
      /-cloud-amd64/,
      'a hostshare-9p lab boots the generic kernel (the cloud one has no 9p)',
    );
    assert.match(kernel, /-amd64 /, kernel);
    const journal = readFileSync(join(dir, 'journal.ndjson'), 'utf8');
    assert.equal((journal.match(/"state":"done"/g) ?? []).length, 22, journal);
  });

  it('fio and dbench ran on all six mount kinds, the three shared folders included', () => {
    for (const mount of ALL_MOUNTS) {
      assert.equal(of('fio', 'bw', mount).length, 4, `fio bw of 4 jobs on ${mount}`);
      const [throughput] = of('dbench', 'throughput', mount);
      assert.ok(throughput && throughput.value > 0, `dbench throughput on ${mount}`);
      assert.equal(of('dbench', 'clients', mount)[0]?.value, 2, `2 dbench clients on ${mount}`);
      // The table lists the loadfile's operations that ran: 16 on the VM's disk in 3 s, 9 on virtiofs and NFS here.
      assert.ok(of('dbench', 'op_count', mount).length >= 5, `dbench's operation table on ${mount}`);
    }
  });

  it('db-import imported the whole dump into a fresh datadir on every mount kind', () => {
    for (const mount of ALL_MOUNTS) {
      const [seconds] = of('db-import', 'seconds', mount);
      assert.ok(seconds && seconds.value > 0, `import seconds on ${mount}`);
      assert.ok((of('db-import', 'rows_per_second', mount)[0]?.value ?? 0) > 0, `rows/s on ${mount}`);
    }
    for (const mount of SHARED) {
      const tsv = readFileSync(join(dir, 'trials', `r1-a-db-import-${mount}`, 'db-import.tsv'), 'utf8');
      assert.match(tsv, /page=(\d+)\/\1,revision=(\d+)\/\2,text=(\d+)\/\3/, `row counts equal the dump on ${mount}`);
    }
  });

  it('lifecycle timed run, inspect, stop, rm and the package churn', () => {
    const phases = of('lifecycle', 'seconds').map((s) => s.phase);
    assert.deepEqual(phases, ['run', 'inspect', 'stop', 'rm', 'install', 'remove']);
    assert.match(readFileSync(join(dir, 'trials', 'r1-a-lifecycle-none', 'inspect.txt'), 'utf8'), /SizeRw=\d+/);
  });

  it('permissions: POSIX decides four cases; the volume cases are reported as they came', () => {
    const wrote = Object.fromEntries(of('permissions', 'wrote').map((s) => [s.case, s.value]));
    assert.equal(Object.keys(wrote).length, 7, 'seven cases');
    assert.equal(wrote['host-user-dir'], 0, 'uid 65534 is "other" on a 1000:1000 775 directory');
    assert.equal(wrote['chown-fix'], 1);
    assert.equal(wrote['user-fix'], 1);
    assert.equal(wrote['volume-with-root-file'], 0, 'no copy-in into a volume that has content');
    const denied = of('permissions', 'exit_status').find((s) => s.case === 'host-user-dir');
    assert.match(String(denied?.error), /Permission denied/);
    assert.equal(denied?.outside, '1000:1000 775');
  });

  it('lifetime: restart keeps everything, recreate loses only the layer', () => {
    const survived = Object.fromEntries(of('lifetime', 'survived').map((s) => [`${s.phase}/${s.place}`, s.value]));
    assert.deepEqual(survived, {
      'written/layer': 1,
      'written/volume': 1,
      'written/bind': 1,
      'restart/layer': 1,
      'restart/volume': 1,
      'restart/bind': 1,
      'recreate/layer': 0,
      'recreate/volume': 1,
      'recreate/bind': 1,
    });
  });

  it('backup: three methods, every archive lists the whole dataset', () => {
    const files = of('backup', 'files');
    assert.deepEqual(files.map((s) => s.method).sort(), ['helper-container', 'host-bind', 'host-volume']);
    assert.ok(
      files.every((s) => s.value === 220),
      '20 + 200 files in each archive',
    );
    const positions = of('backup', 'position')
      .map((s) => s.value)
      .sort();
    assert.deepEqual(positions, [1, 2, 3]);
  });

  it('the report has a section per scenario and answers the seed claims it has data for', () => {
    const report = readFileSync(join(dir, 'report.md'), 'utf8');
    // Headings are Markdown: the summary as report.md writes it ("a volume \_data directory").
    for (const scenario of Object.values(SCENARIOS))
      assert.ok(report.includes(`## ${markdownText(scenario.summary)}`), scenario.name);
    assert.match(report, /## Seed claims/);
    assert.match(report, /\(seed 003\): a uid-65534 container/);
    assert.match(report, /\(seed 002\): dbench on a folder shared from the VM's host/);
    assert.match(report, /\(seed 000\): the MySQL dump import into a named volume/);
    assert.match(report, /\| recreate \| 0\/1 \| 1\/1 \| 1\/1 \|/);
  });

  it('layerlab parse reads every raw file of the run', async () => {
    for (const scenario of Object.values(SCENARIOS)) {
      const trial = readdirSync(join(dir, 'trials')).find((t) => t.includes(`-${scenario.name}-`));
      assert.ok(trial, `a trial of ${scenario.name}`);
      const r = await layerlab('parse', scenario.name, join(dir, 'trials', trial, scenario.rawFile));
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.trim().split('\n').length >= 1, `${scenario.name}: samples printed`);
    }
  });

  it('down stops the VM, virtiofsd, nfs-ganesha and its forwards, and removes the shared folders', async () => {
    const r = await layerlab('down', '--lab', labFile);
    assert.equal(r.code, 0, r.stderr);
    for (const h of recorded) {
      assert.ok(!(h.pid && isOurProcess(h.pid, h.dir)), `${h.name}: qemu stopped`);
      assert.ok(!(h.sharePid && isOurProcess(h.sharePid, h.dir)), `${h.name}: virtiofsd stopped`);
      assert.ok(!(h.nfsPid && isOurProcess(h.nfsPid, h.dir)), `${h.name}: nfs-ganesha stopped`);
      const forwards = processesNaming(`TCP4:127.0.0.1:${h.nfsPort}`);
      assert.deepEqual(forwards, [], `${h.name}: no socat left forwarding to the NFS port`);
    }
    assert.ok(!existsSync(join(stateDir, 'labs', LAB)), 'state folder (and the share in it) gone');
    const mounts = readFileSync('/proc/self/mountinfo', 'utf8');
    assert.ok(!mounts.includes(stateDir), "no mount left under the lab's state (the NFS export's file system)");
  });
});
