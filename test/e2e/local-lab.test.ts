/**
 * The real thing: two QEMU VMs (overlay2-xfs and devicemapper-lvm) booted,
 * prepared over SSH, fio on layer/volume/bind, results collected, report
 * written, everything torn down. Slow under TCG (several minutes); no mocks.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkManifest } from '../../lab/collect/manifest-check.ts';
import { cacheRoot } from '../../lab/paths.ts';
import { SshConnection } from '../../lab/ssh/transport.ts';
import { HostLog } from '../../lab/util/log.ts';
import { isOurProcess } from '../../lab/util/proc.ts';
import { BIN, cliRunner } from './cli.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-e2e-local-lab-'));
const stateDir = join(work, 'state');
const resultsDir = join(work, 'results');
const LAB = 'e2e';
const labFile = join(work, 'e2e.yaml');

writeFileSync(
  labFile,
  `name: ${LAB}
seed: 99
target: { local: { bootTimeoutSec: 900 } } # test:e2e runs two files at once: a boot may share 2 cores with 4 other VMs
hosts: # one vCPU each: test:e2e has up to five VMs on two cores at once; a cold up costs a third less CPU with one, a run a tenth more (README, Development)
  - { name: xfs, profile: overlay2-xfs, cpus: 1, diskGiB: 2 }
  - { name: dm, profile: devicemapper-lvm, cpus: 1, diskGiB: 2 }
scenarios:
  fio: { size: 8M, runtime: 1, ramp: 0, iodepth: 4 }
mounts: [layer, volume, bind]
repetitions: 1
`,
);

const env = { ...process.env, LAYERLAB_HOME: stateDir, LAYERLAB_RESULTS: resultsDir };

const layerlab = cliRunner(work, env);

interface HostState {
  name: string;
  dir: string;
  pid?: number;
  port?: number;
  hostKey?: string;
  /** The template the VM was restored from. */
  template?: string;
  prepared?: boolean;
}
const statePath = join(stateDir, 'labs', LAB, 'state.json');
const readState = () => JSON.parse(readFileSync(statePath, 'utf8')) as { hosts: Record<string, HostState> };
let recorded: HostState[] = [];

interface JournalLine {
  trial: string;
  host: string;
  state: string;
  reason?: string;
}

/** Runs one command on a VM of the lab over a connection of its own, with the key and host key state.json records. */
async function onHost(h: HostState, command: string) {
  const log = new HostLog(join(work, `${h.name}-direct.log`));
  const endpoint = {
    name: h.name,
    address: '127.0.0.1',
    port: h.port as number,
    user: 'root',
    privateKey: readFileSync(join(h.dir, 'id_ed25519'), 'utf8'),
    hostKey: h.hostKey as string,
  };
  const conn = await SshConnection.connect(endpoint, log, Date.now() + 60_000);
  try {
    return await conn.run(command);
  } finally {
    conn.close();
    await log.close();
  }
}

/** Entries of a folder that may not exist yet. */
const entriesOf = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

/** A run's journal so far (empty before it exists). */
function readJournal(dir: string): JournalLine[] {
  const path = join(dir, 'journal.ndjson');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JournalLine);
}

const finalStates = (dir: string) => new Map(readJournal(dir).map((e) => [e.trial, e]));

/** `layerlab run` (with `extra` arguments) in the background, for the tests that interrupt or sabotage it. */
function startRun(runEnv: NodeJS.ProcessEnv, ...extra: string[]) {
  const child = spawn(process.execPath, [BIN, 'run', '--lab', labFile, ...extra], {
    cwd: work,
    env: runEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stderr: '' };
  child.stderr.on('data', (c) => {
    out.stderr += c;
  });
  const exited = new Promise<number | null>((done) => child.on('close', done));
  return { child, out, exited };
}

/** Waits until a new run folder of this lab under `root` has a journal for which `ready` holds. */
async function waitForJournal(
  root: string,
  before: ReadonlySet<string>,
  ready: (journal: JournalLine[]) => boolean,
): Promise<string> {
  for (let waited = 0; waited < 15 * 60_000; waited += 500) {
    await new Promise((r) => setTimeout(r, 500));
    const fresh = entriesOf(root).find((d) => !before.has(d) && d.includes(LAB));
    if (fresh && ready(readJournal(join(root, fresh)))) return join(root, fresh);
  }
  throw new Error('the run never reached the expected state');
}

/** At least `n` trials done and one in flight. */
const doneThenInFlight = (n: number) => (j: JournalLine[]) =>
  j.filter((e) => e.state === 'done').length >= n && j[j.length - 1]?.state === 'started';

const inFlightFor = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(() => {
  assert.ok(!existsSync(statePath), '!existsSync(statePath)');
});

// Whatever happened, nothing of this test may stay running.
after(async () => {
  if (existsSync(statePath)) await layerlab('down', '--name', LAB);
  for (const h of recorded) if (h.pid && isOurProcess(h.pid, h.dir)) process.kill(h.pid, 'SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

describe('local lab end to end', { timeout: 45 * 60_000 }, () => {
  it('up --cold boots and prepares both hosts, recording pids, ports and pinned host keys, and keeps each as a template', async () => {
    const r = await layerlab('up', '--lab', labFile, '--cold');
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /restored from a prepared template/, '--cold restores nothing');
    for (const host of ['xfs', 'dm']) assert.match(r.stderr, new RegExp(`${host}: kept as a template for later ups`));
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

  it('down, then up: each host restored from its template, with the time, a host key and a hostname of its own', async () => {
    const cold = readState();
    assert.equal((await layerlab('down', '--lab', labFile)).code, 0);
    const r = await layerlab('up', '--lab', labFile);
    assert.equal(r.code, 0, r.stderr);
    const state = readState();
    recorded = Object.values(state.hosts);
    for (const h of recorded) {
      assert.match(r.stderr, new RegExp(`${h.name}: restored from a prepared template`));
      assert.ok(h.template && h.prepared, `${h.name} is recorded as restored and prepared`);
      const template = JSON.parse(
        readFileSync(join(cacheRoot(), 'templates', h.template, 'template.json'), 'utf8'),
      ) as { hostKey: string };
      assert.notEqual(h.hostKey, template.hostKey, `${h.name} answers with a host key of its own, not the template's`);
      assert.notEqual(h.hostKey, cold.hosts[h.name]?.hostKey, "nor the cold VM's");
      const asked = Date.now() / 1000;
      const facts = await onHost(
        h,
        'date +%s; hostname; systemctl is-active docker; docker image ls --format "{{.Repository}}"',
      );
      const [clock, hostname, docker, images] = facts.stdout.trim().split('\n');
      assert.ok(
        Math.abs(Number(clock) - asked) < 30,
        `${h.name} clock ${clock} is the controller's (${asked.toFixed(0)}), not the template's`,
      );
      assert.equal(hostname, h.name);
      assert.equal(docker, 'active', 'dockerd runs on, as prepared');
      assert.match(images ?? '', /layerlab\/fio/, 'the tool image is there');
    }
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
    assert.ok(existsSync(join(resultsDir, 'history.sqlite')), "existsSync(join(resultsDir, 'history.sqlite'))");
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
      assert.ok(
        fio.jobs[0].write.io_bytes > 0 && fio.jobs[1].read.io_bytes > 0,
        'fio.jobs[0].write.io_bytes > 0 && fio.jobs[1].read.io_bytes > 0',
      );
    }
    const samples = readFileSync(join(runDir, 'samples.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(samples.length, 6 * 4 * 5, 'six trials x four jobs x five metrics');
    assert.ok(
      samples.every((s) => s.value > 0 && s.run && s.host && s.trial && s.mount && s.profile),
      'samples.every((s) => s.value > 0 && s.run && s.host && s.trial && s.mount && s.profile)',
    );

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
    assert.match(
      report,
      /1 vs 1 runs cannot show a difference at 95% \(smallest possible p 1\.00; 4 per side can/,
      'one repetition claims nothing',
    );
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
    // The hosts side by side: a column per host, a row per fact, the facts that differ in bold.
    assert.match(report, /\| fact \| xfs \(overlay2-xfs\) \| dm \(devicemapper-lvm\) \|/);
    assert.match(report, /\| kernel \| 6\.1\.\d+\S* \| 6\.1\.\d+\S* \|/);
    assert.match(report, /\| \*\*storage driver\*\* — differs \| \*\*overlay2 on xfs\*\* \| \*\*devicemapper/);
    // No key material anywhere in the results: logs, env, raw output, reports.
    const grep = spawnSync('grep', ['-rl', '-e', 'PRIVATE KEY', '-e', 'b3BlbnNzaC1rZXktdjE', runDir], {
      encoding: 'utf8',
    });
    assert.equal(grep.status, 1, `no private key material in the run folder: ${grep.stdout}`);
    // Nor in the lab's logs (controller, qemu console, SSH): only key files and the VMs' own disks hold keys.
    const logs = spawnSync(
      'grep',
      [
        '-rl',
        '--exclude=id_ed25519',
        '--exclude=seed.tar',
        '--exclude=*.qcow2',
        '--exclude=*.raw',
        '-e',
        'PRIVATE KEY',
        '-e',
        'b3BlbnNzaC1rZXktdjE',
        stateDir,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(logs.status, 1, `no private key material in logs or state: ${logs.stdout}`);
  });

  it("fio's container: kept: a cell's later trials exec into its container; the run's end leaves none", async () => {
    // The same lab, hosts and name; fio kept, two repetitions so that each cell has a later trial.
    const keptFile = join(work, 'e2e-kept.yaml');
    writeFileSync(
      keptFile,
      readFileSync(labFile, 'utf8')
        .replace('iodepth: 4 }', 'iodepth: 4, container: kept }')
        .replace('mounts: [layer, volume, bind]', 'mounts: [layer, volume]')
        .replace('repetitions: 1', 'repetitions: 2'),
    );
    const before = new Set(entriesOf(resultsDir));
    const r = await layerlab('run', '--lab', keptFile);
    assert.equal(r.code, 0, r.stderr);
    const dir = join(resultsDir, entriesOf(resultsDir).find((d) => !before.has(d) && d.includes(LAB)) as string);
    const done = readJournal(dir).filter((e) => e.state === 'done') as (JournalLine & {
      phases?: Record<string, number>;
    })[];
    assert.equal(done.length, 8, 'two hosts x two mounts x two repetitions');
    for (const e of done) {
      const fio = JSON.parse(readFileSync(join(dir, 'trials', e.trial, 'fio.json'), 'utf8'));
      for (const job of fio.jobs) assert.equal(job.error, 0, `${e.trial} ${job.jobname}`);
      // The first trial of a cell mounts its storage and starts its container; a later one only looks it up.
      const first = e.trial.startsWith('r1-');
      assert.equal(e.phases?.mount !== undefined, first, `${e.trial}: mount phase ${JSON.stringify(e.phases)}`);
    }
    for (const h of recorded) {
      const left = await onHost(
        h,
        'docker ps -aq --filter label=layerlab.kept; docker volume ls -q --filter label=layerlab.kept; ls /var/lib/docker/layerlab-bind',
      );
      assert.equal(left.stdout.trim(), '', `${h.name}: nothing kept after the run: ${left.stdout}`);
    }
  });

  it(
    'interrupted twice, resumed each time: Ctrl-C twice mid-trial, then the results disk full mid-trial; finished trials kept, the ones in flight rerun, nothing counted twice',
    {
      // One run takes both interruptions: a third run of the lab would cost another six trials under TCG.
      skip: process.getuid?.() !== 0 && 'mounting a size-limited tmpfs for the results needs root',
    },
    async () => {
      const small = join(work, 'small-results');
      mkdirSync(small);
      assert.equal(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=0755', 'layerlab-e2e', small]).status, 0);
      try {
        const smallEnv = { ...env, LAYERLAB_RESULTS: small };
        const layerlabSmall = cliRunner(work, smallEnv);
        // 1. Ctrl-C twice while a trial runs.
        const run = startRun(smallEnv);
        const dir = await waitForJournal(small, new Set(), doneThenInFlight(2));
        await inFlightFor(3000); // well inside the trial: fio is running
        run.child.kill('SIGINT');
        await inFlightFor(200);
        run.child.kill('SIGINT');
        assert.equal(await run.exited, 130, 'a second Ctrl-C exits at once');
        const beforeResume = finalStates(dir);
        const inFlight = [...beforeResume].filter(([, e]) => e.state === 'started').map(([t]) => t);
        assert.equal(inFlight.length, 1, 'exactly one trial was in flight');
        const doneBefore = [...beforeResume].filter(([, e]) => e.state === 'done').map(([t]) => t);
        const doneMtimes = doneBefore.map((t) => statSync(join(dir, 'trials', t, 'meta.json')).mtimeMs);

        // 2. Resumed; once the interrupted trial is done and another runs, the results disk fills to the last byte.
        const resumed = startRun(smallEnv, '--resume', basename(dir));
        await waitForJournal(
          small,
          new Set(),
          (j) => j.some((e) => e.trial === inFlight[0] && e.state === 'done') && j.at(-1)?.state === 'started',
        );
        await inFlightFor(3000);
        const filler = join(small, 'filler');
        const block = Buffer.alloc(64 * 1024);
        const fd = openSync(filler, 'w');
        try {
          for (;;) writeSync(fd, block);
        } catch (err) {
          assert.equal((err as NodeJS.ErrnoException).code, 'ENOSPC');
        } finally {
          closeSync(fd);
        }
        assert.equal(await resumed.exited, 1, resumed.out.stderr);
        assert.match(
          resumed.out.stderr,
          new RegExp(`resuming run ${basename(dir)}: ${doneBefore.length} of 6 trials done`),
        );
        assert.match(
          resumed.out.stderr,
          /the results disk is full .*Nothing finished is lost\. Free space under .*, then continue with `layerlab run --resume /,
        );
        const doneAtFull = readJournal(dir)
          .filter((e) => e.state === 'done')
          .map((e) => e.trial);
        for (const t of doneAtFull) assert.deepEqual(await checkManifest(join(dir, 'trials', t)), [], `${t} intact`);

        // 3. Space freed, resumed again: the run completes.
        rmSync(filler);
        const r = await layerlabSmall('run', '--resume', basename(dir), '--lab', labFile);
        assert.equal(r.code, 0, r.stderr);
        const after = finalStates(dir);
        assert.equal(after.size, 6);
        assert.ok(
          [...after.values()].every((e) => e.state === 'done'),
          'every trial of the plan is done',
        );
        assert.deepEqual(
          doneBefore.map((t) => statSync(join(dir, 'trials', t, 'meta.json')).mtimeMs),
          doneMtimes,
          'trials finished before Ctrl-C were not run again',
        );
        assert.equal(
          readJournal(dir).filter((e) => e.trial === inFlight[0] && e.state === 'started').length,
          2,
          'the trial in flight at Ctrl-C ran again, once',
        );
        const samples = readFileSync(join(dir, 'samples.ndjson'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        assert.equal(samples.length, 6 * 4 * 5, 'the trial set of an uninterrupted run');
        const keys = new Set(samples.map((s) => [s.trial, s.metric, s.job, s.direction].join('/')));
        assert.equal(keys.size, samples.length, 'no sample counted twice');
        assert.ok(!existsSync(join(dir, 'trials', '.partial')), "!existsSync(join(dir, 'trials', '.partial'))");
        for (const t of after.keys()) assert.ok(existsSync(join(dir, 'trials', t, 'MANIFEST')), `${t} was verified`);
        const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
        assert.equal(manifest.resumes.length, 2);
        const again = await layerlabSmall('run', '--resume', basename(dir), '--lab', labFile);
        assert.equal(again.code, 2);
        assert.match(again.stderr, /is complete .*nothing to resume/);

        // Two real runs of the same lab: compare runs and claims no regression (n = 1: not enough runs).
        const cmp = await layerlab('compare', runDir, dir);
        assert.equal(cmp.code, 0, cmp.stdout + cmp.stderr);
        assert.match(
          cmp.stdout,
          /48 cells: \*\*0 regression\(s\)\*\*, 0 improvement\(s\), 0 with no consistent difference, 48 with not enough runs/,
        );
      } finally {
        spawnSync('umount', [small]);
      }
    },
  );

  it('a dropped SSH connection mid-trial is reconnected and the trial run once more; a host whose qemu dies fails its remaining trials while the other goes on', async () => {
    const before = new Set(entriesOf(resultsDir));
    const run = startRun(env);
    // Fault 1: as the first trial runs, kill the sshd that carries the controller's connection to its host.
    const dir = await waitForJournal(resultsDir, before, (j) => j.at(-1)?.state === 'started');
    await inFlightFor(3000);
    const first = readJournal(dir).at(-1) as JournalLine;
    const dropped = { trial: first.trial, host: first.host };
    const target = readState().hosts[dropped.host] as HostState;
    const sshd = await onHost(
      target,
      'pid="$(cat /var/lib/layerlab/work/trial.pid)"; sid="$(ps -o sid= -p "$pid" | tr -d " ")"; sshd="$(ps -o ppid= -p "$sid" | tr -d " ")"; ps -o args= -p "$sshd"; kill -KILL "$sshd"',
    );
    assert.match(sshd.stdout, /^sshd: root/, "the process killed is the sshd of the controller's session");

    // Fault 2: the other host's VM dies in its next trial.
    await waitForJournal(resultsDir, before, (j) => j.at(-1)?.state === 'started' && j.at(-1)?.host !== dropped.host);
    await inFlightFor(3000);
    const second = readJournal(dir).at(-1) as JournalLine;
    const killed = { trial: second.trial, host: second.host };
    const victim = readState().hosts[killed.host] as HostState;
    assert.ok(victim.pid && isOurProcess(victim.pid, victim.dir), 'victim.pid && isOurProcess(victim.pid, victim.dir)');
    process.kill(victim.pid, 'SIGKILL');

    assert.equal(await run.exited, 1, 'failed trials: exit 1');
    const { stderr } = run.out;
    const entries = readJournal(dir);
    const final = new Map(entries.map((e) => [e.trial, e]));
    assert.equal(
      entries.filter((e) => e.trial === dropped.trial && e.state === 'started').length,
      2,
      'dropped trial ran twice',
    );
    assert.equal(
      final.get(dropped.trial)?.state,
      'done',
      `and counted once, as done: ${final.get(dropped.trial)?.reason}`,
    );
    assert.match(stderr, new RegExp(`${dropped.host}: connection lost during ${dropped.trial}; reconnecting`));
    assert.match(stderr, new RegExp(`${dropped.host}: reconnected`));
    assert.equal(final.get(killed.trial)?.state, 'failed');
    const plan = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')) as { trials: { id: string; host: string }[] };
    const later = plan.trials.slice(plan.trials.findIndex((t) => t.id === killed.trial));
    for (const t of later.filter((t) => t.host === killed.host)) {
      assert.equal(final.get(t.id)?.state, 'failed', t.id);
      assert.match(final.get(t.id)?.reason ?? '', new RegExp(`host ${killed.host} stopped answering`));
    }
    for (const t of plan.trials.filter((t) => t.host !== killed.host))
      assert.equal(final.get(t.id)?.state, 'done', `${t.id} on the healthy host`);
    const done = [...final.values()].filter((e) => e.state === 'done').length;
    const samples = readFileSync(join(dir, 'samples.ndjson'), 'utf8').trim().split('\n').filter(Boolean);
    assert.equal(samples.length, done * 20, 'samples of done trials only, each once');
    const report = readFileSync(join(dir, 'report.md'), 'utf8');
    assert.match(report, new RegExp(`host ${killed.host} stopped answering`), 'the report lists the failures');
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
    assert.ok(existsSync(join(runDir, 'samples.ndjson')), "existsSync(join(runDir, 'samples.ndjson'))");
  });
});
