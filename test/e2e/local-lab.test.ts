/**
 * The real thing: two QEMU VMs (overlay2-xfs and devicemapper-lvm) booted,
 * prepared over SSH, fio on layer/volume/bind, results collected, report
 * written, everything torn down. Slow under TCG (several minutes); no mocks.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SshConnection } from '../../lab/ssh/transport.ts';
import { HostLog } from '../../lab/util/log.ts';
import { isOurProcess } from '../../lab/util/proc.ts';

const BIN = resolve(import.meta.dirname, '..', '..', 'bin', 'layerlab.js');
const work = mkdtempSync(join(tmpdir(), 'layerlab-e2e-'));
const stateDir = join(work, 'state');
const resultsDir = join(work, 'results');
const LAB = 'e2e';
const labFile = join(work, 'e2e.yaml');

writeFileSync(
  labFile,
  `name: ${LAB}
seed: 99
hosts:
  - { name: xfs, profile: overlay2-xfs, diskGiB: 2 }
  - { name: dm, profile: devicemapper-lvm, diskGiB: 2 }
scenarios:
  fio: { size: 8M, runtime: 1, ramp: 0, iodepth: 4 }
mounts: [layer, volume, bind]
repetitions: 1
`,
);

const env = { ...process.env, LAYERLAB_HOME: stateDir, LAYERLAB_RESULTS: resultsDir };

function layerlab(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
      process.stderr.write(c); // progress stays visible in CI logs
    });
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

interface HostState {
  name: string;
  dir: string;
  pid?: number;
  port?: number;
  hostKey?: string;
}
const statePath = join(stateDir, 'labs', LAB, 'state.json');
const readState = () => JSON.parse(readFileSync(statePath, 'utf8')) as { hosts: Record<string, HostState> };
let recorded: HostState[] = [];

before(() => {
  assert.ok(!existsSync(statePath));
});

// Whatever happened, nothing of this test may stay running.
after(async () => {
  if (existsSync(statePath)) await layerlab('down', '--name', LAB);
  for (const h of recorded) if (h.pid && isOurProcess(h.pid, h.dir)) process.kill(h.pid, 'SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

describe('local lab end to end', { timeout: 45 * 60_000 }, () => {
  it('up boots and prepares both hosts, recording pids, ports and pinned host keys', async () => {
    const r = await layerlab('up', '--lab', labFile);
    assert.equal(r.code, 0, r.stderr);
    const state = readState();
    recorded = Object.values(state.hosts);
    assert.deepEqual(recorded.map((h) => h.name).sort(), ['dm', 'xfs']);
    for (const h of recorded) {
      assert.ok(h.pid && isOurProcess(h.pid, h.dir), `${h.name} qemu runs`);
      assert.match(h.hostKey ?? '', /^ssh-ed25519 AAAA/);
      const cmdline = readFileSync(`/proc/${h.pid}/cmdline`, 'utf8').split('\0');
      assert.equal(statSync(join(h.dir, 'id_ed25519')).mode & 0o777, 0o600, 'private key is 0600');
      assert.equal(statSync(join(h.dir, 'seed.tar')).mode & 0o777, 0o600, 'seed (host key) is 0600');
      const nic = cmdline.find((a) => a.startsWith('user,'));
      assert.match(nic ?? '', /restrict=on,hostfwd=tcp:127\.0\.0\.1:\d+-:22/);
    }
  });

  it('a second up keeps the running hosts', async () => {
    const before = readState();
    const r = await layerlab('up', '--lab', labFile);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      Object.values(readState().hosts).map((h) => h.pid),
      Object.values(before.hosts).map((h) => h.pid),
    );
  });

  it('refuses a host whose key is not the pinned one', async () => {
    const xfs = readState().hosts.xfs as HostState;
    const dm = readState().hosts.dm as HostState;
    const log = new HostLog(join(work, 'mismatch.log'));
    await assert.rejects(
      SshConnection.connect(
        {
          name: 'xfs',
          address: '127.0.0.1',
          port: xfs.port as number,
          user: 'root',
          privateKey: readFileSync(join(xfs.dir, 'id_ed25519'), 'utf8'),
          hostKey: dm.hostKey as string, // another VM's key
        },
        log,
        Date.now() + 30_000,
      ),
      /does not match the pinned key/,
    );
    await log.close();
  });

  let runDir = '';
  it('run executes every trial and collects raw fio JSON, meta and env', async () => {
    const r = await layerlab('run', '--lab', labFile);
    assert.equal(r.code, 0, r.stderr);
    // Run folders, beside results/history.sqlite.
    const runs = readdirSync(resultsDir).filter((d) => existsSync(join(resultsDir, d, 'manifest.json')));
    assert.equal(runs.length, 1);
    assert.ok(existsSync(join(resultsDir, 'history.sqlite')));
    runDir = join(resultsDir, runs[0] as string);
    for (const f of ['manifest.json', 'plan.json', 'journal.ndjson', 'samples.ndjson', 'summary.json', 'report.md']) {
      assert.ok(existsSync(join(runDir, f)), f);
    }
    const plan = JSON.parse(readFileSync(join(runDir, 'plan.json'), 'utf8'));
    assert.equal(plan.trials.length, 6);
    for (const trial of plan.trials) {
      const dir = join(runDir, 'trials', trial.id);
      const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8'));
      assert.equal(meta.exit_status, '0', trial.id);
      const fio = JSON.parse(readFileSync(join(dir, 'fio.json'), 'utf8'));
      assert.deepEqual(
        fio.jobs.map((j: { jobname: string }) => j.jobname),
        ['seqwrite', 'seqread', 'randwrite', 'randread'],
      );
      for (const job of fio.jobs) assert.equal(job.error, 0, `${trial.id} ${job.jobname}`);
      assert.ok(fio.jobs[0].write.io_bytes > 0 && fio.jobs[1].read.io_bytes > 0);
    }
    const samples = readFileSync(join(runDir, 'samples.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(samples.length, 6 * 4 * 5, 'six trials x four jobs x five metrics');
    assert.ok(samples.every((s) => s.value > 0 && s.run && s.host && s.trial && s.mount && s.profile));

    const xfsEnv = JSON.parse(readFileSync(join(runDir, 'hosts', 'xfs', 'env', 'summary.json'), 'utf8'));
    assert.equal(xfsEnv.storage_driver, 'overlay2');
    assert.equal(xfsEnv.docker_root_fstype, 'xfs');
    assert.match(readFileSync(join(runDir, 'hosts', 'xfs', 'env', 'xfs-info.txt'), 'utf8'), /ftype=1/);
    const dmEnv = JSON.parse(readFileSync(join(runDir, 'hosts', 'dm', 'env', 'summary.json'), 'utf8'));
    assert.equal(dmEnv.storage_driver, 'devicemapper');
    assert.match(
      readFileSync(join(runDir, 'hosts', 'dm', 'env', 'docker-info.txt'), 'utf8'),
      /Pool Name: docker-thinpool/,
    );
    const info = JSON.parse(readFileSync(join(runDir, 'hosts', 'dm', 'env', 'docker-info.json'), 'utf8'));
    assert.equal(info.Driver, 'devicemapper');
  });

  it('report re-parses the raw trials; report.md has a table per host with every job and mount, and the hosts', async () => {
    const r = await layerlab('report', runDir);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), join(runDir, 'report.md'));
    const csv = readFileSync(join(runDir, 'samples.csv'), 'utf8').trim().split('\n');
    assert.equal(csv.length, 1 + 6 * 4 * 5);
    assert.match(csv[0] ?? '', /^run,host,profile,scenario,mount,rep,trial,metric,value,unit,timestamp,direction,job$/);
    const history = await layerlab('history', '--lab', LAB);
    assert.equal(history.code, 0, history.stderr);
    assert.match(history.stdout, new RegExp(`${basename(runDir)} \\| ${LAB} \\| .* \\| 6/0 \\| 120 \\|`));
    const report = readFileSync(join(runDir, 'report.md'), 'utf8');
    assert.match(report, /### Comparisons/);
    assert.match(report, /not enough runs \(n = 1 vs 1; need 3\)/, 'one repetition claims nothing');
    assert.match(report, /### xfs \(overlay2-xfs\)/);
    assert.match(report, /### dm \(devicemapper-lvm\)/);
    for (const job of ['seqwrite', 'seqread', 'randwrite', 'randread']) {
      for (const mount of ['layer', 'volume', 'bind']) {
        assert.match(
          report,
          new RegExp(`\\| ${job} \\| ${mount} \\| [\\d.]+ \\([\\d.]+–[\\d.]+\\) \\| [\\d.]+ .* \\| 1 \\|`),
        );
      }
    }
    assert.match(report, /\| xfs \| 6\.1\.\d+.* \| overlay2 on xfs \| xfs /);
    // No key material anywhere in the results: logs, env, raw output, reports.
    const grep = spawnSync('grep', ['-rl', '-e', 'PRIVATE KEY', '-e', 'b3BlbnNzaC1rZXktdjE', runDir], {
      encoding: 'utf8',
    });
    assert.equal(grep.status, 1, `no private key material in the run folder: ${grep.stdout}`);
  });

  it('down leaves no qemu process, overlay, data disk or state behind', async () => {
    const r = await layerlab('down', '--lab', labFile);
    assert.equal(r.code, 0, r.stderr);
    for (const h of recorded) {
      assert.ok(!(h.pid && isOurProcess(h.pid, h.dir)), `${h.name} qemu is gone`);
      assert.ok(!existsSync(join(h.dir, 'root.qcow2')), 'overlay deleted');
      assert.ok(!existsSync(join(h.dir, 'data.raw')), 'data disk deleted');
    }
    assert.ok(!existsSync(join(stateDir, 'labs', LAB)), 'lab state directory deleted');
    const stray = readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(stateDir);
        } catch {
          return false;
        }
      });
    assert.deepEqual(stray, [], 'no process mentions the lab state directory');
    // Results stay: they are the point.
    assert.ok(existsSync(join(runDir, 'samples.ndjson')));
  });
});
