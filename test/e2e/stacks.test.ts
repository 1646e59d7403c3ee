/**
 * Today's stacks on real local VMs (issue 18): Docker 26 with overlay2,
 * Docker 26 with the containerd image store (overlayfs snapshotter) and root
 * Podman with overlay, each a Debian 13 guest on an ext4 data disk. `layerlab
 * all` boots, prepares, runs fio on layer/volume/bind and the container
 * lifecycle, reports and tears down; the captured env must show each
 * engine's own account of its driver or snapshotter. Docker 20.10 on Debian
 * 12 is local-lab.test.ts's. One repetition of tiny sizes: it checks that the
 * stacks work, not what they measure. No mocks.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cliRunner } from './cli.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-e2e-stacks-'));
const stateDir = join(work, 'state');
const resultsDir = join(work, 'results');
const LAB = 'e2e-stacks';
const labFile = join(work, 'stacks.yaml');
const HOSTS = ['d26', 'ctrd', 'pod'];

// Three cold VMs booting at once on two emulated cores: one once took more
// than the default 300 s to answer SSH (as in labs/stacks-tcg.yaml).
writeFileSync(
  labFile,
  `name: ${LAB}
seed: 18
target: { trials: parallel, local: { bootTimeoutSec: 900 } } # this file often ends alone: three hosts' trials at once fill both cores
hosts: # one vCPU each: test:e2e has up to five VMs on two cores at once; a cold up costs a third less CPU with one, a run a tenth more (README, Development)
  - { name: d26, profile: overlay2-ext4, os: debian-13, cpus: 1, diskGiB: 2 }
  - { name: ctrd, profile: containerd-ext4, os: debian-13, cpus: 1, diskGiB: 2 }
  - { name: pod, profile: podman-overlay-ext4, os: debian-13, cpus: 1, diskGiB: 2 }
scenarios:
  fio: { size: 8M, runtime: 1, ramp: 0, iodepth: 4, jobs: [seqwrite] }
  lifecycle: { containers: 2, churnContainers: 0 }
mounts: [layer, volume, bind]
repetitions: 1
`,
);

const layerlab = cliRunner(work, { ...process.env, LAYERLAB_HOME: stateDir, LAYERLAB_RESULTS: resultsDir });
const statePath = join(stateDir, 'labs', LAB, 'state.json');

// Whatever happened, nothing of this test may stay running.
after(async () => {
  if (existsSync(statePath)) await layerlab('down', '--name', LAB);
  rmSync(work, { recursive: true, force: true });
});

const envFile = (runDir: string, host: string, file: string) => join(runDir, 'hosts', host, 'env', file);
const summaryOf = (runDir: string, host: string) =>
  JSON.parse(readFileSync(envFile(runDir, host, 'summary.json'), 'utf8')) as Record<string, string | undefined>;

describe('today’s stacks end to end', { timeout: 45 * 60_000 }, () => {
  let runDir = '';
  it('all: the three debian-13 stacks prepare, run fio on layer/volume/bind and lifecycle, report, go down', async () => {
    const started = Date.now();
    const r = await layerlab('all', '--lab', labFile);
    process.stderr.write(`stacks e2e: layerlab all took ${Math.round((Date.now() - started) / 1000)} s\n`);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!existsSync(statePath), 'all went down');
    const runs = readdirSync(resultsDir).filter((d) => existsSync(join(resultsDir, d, 'manifest.json')));
    assert.equal(runs.length, 1);
    runDir = join(resultsDir, runs[0] as string);
    const plan = JSON.parse(readFileSync(join(runDir, 'plan.json'), 'utf8')) as {
      trials: { id: string; host: string; scenario: string }[];
    };
    assert.equal(plan.trials.length, HOSTS.length * 4, 'per host: fio on three mounts, one lifecycle');
    for (const trial of plan.trials) {
      const meta = JSON.parse(readFileSync(join(runDir, 'trials', trial.id, 'meta.json'), 'utf8'));
      assert.equal(meta.exit_status, '0', `${trial.id} (${trial.host}, ${trial.scenario})`);
    }
    const samples = readFileSync(join(runDir, 'samples.ndjson'), 'utf8').trim().split('\n');
    for (const host of HOSTS) {
      const mine = samples.map((l) => JSON.parse(l)).filter((s) => s.host === host);
      assert.ok(
        mine.some((s) => s.scenario === 'fio' && s.metric === 'bw' && s.value > 0),
        `${host}: fio bandwidth sampled`,
      );
      assert.ok(
        mine.some((s) => s.scenario === 'lifecycle' && s.value > 0),
        `${host}: lifecycle phases sampled`,
      );
    }
    assert.match(readFileSync(join(runDir, 'report.md'), 'utf8'), /### pod \(podman-overlay-ext4\)/);
  });

  it('env: Docker 26 overlay2, the containerd snapshotter and Podman overlay, each on the ext4 data disk', () => {
    const d26 = summaryOf(runDir, 'd26');
    assert.equal(d26.engine, 'docker');
    assert.match(String(d26.engine_version), /^26\./);
    assert.equal(d26.storage_driver, 'overlay2');
    assert.equal(d26.snapshotter, '');

    const ctrd = summaryOf(runDir, 'ctrd');
    assert.equal(ctrd.engine, 'docker');
    assert.match(String(ctrd.engine_version), /^26\./);
    assert.equal(ctrd.storage_driver, 'overlayfs');
    assert.equal(ctrd.snapshotter, 'overlayfs (io.containerd.snapshotter.v1)');
    assert.match(
      readFileSync(envFile(runDir, 'ctrd', 'docker-info.txt'), 'utf8'),
      /driver-type: io\.containerd\.snapshotter\.v1/,
    );
    assert.match(readFileSync(envFile(runDir, 'ctrd', 'daemon.json'), 'utf8'), /"containerd-snapshotter": true/);
    assert.match(
      readFileSync(envFile(runDir, 'ctrd', 'containerd-config.toml'), 'utf8'),
      /^root = "\/var\/lib\/docker\/layerlab-containerd"$/m,
    );

    const pod = summaryOf(runDir, 'pod');
    assert.equal(pod.engine, 'podman');
    assert.match(String(pod.engine_version), /^5\./);
    assert.equal(pod.storage_driver, 'overlay');
    const info = JSON.parse(readFileSync(envFile(runDir, 'pod', 'podman-info.json'), 'utf8'));
    assert.equal(info.store.graphDriverName, 'overlay');
    assert.equal(info.store.graphRoot, '/var/lib/docker/podman');

    for (const host of HOSTS) {
      const env = summaryOf(runDir, host);
      assert.equal(env.docker_root_fstype, 'ext4', `${host}: data disk is ext4`);
      assert.match(String(env.os), /Debian GNU\/Linux 13/, `${host}: runs Debian 13`);
    }
    // Each engine's image list read alike (podman's localhost/ prefix dropped): the same bytes on every host.
    const toolImages = HOSTS.map((host) => readFileSync(envFile(runDir, host, 'tool-images.txt'), 'utf8'));
    assert.match(toolImages[0] ?? '', /^layerlab\/fio:[0-9a-f]{16} [0-9a-f]{64}$/m, toolImages[0]);
    assert.match(toolImages[0] ?? '', /^layerlab\/shell:[0-9a-f]{16} [0-9a-f]{64}$/m, toolImages[0]);
    for (const [i, host] of HOSTS.entries())
      assert.equal(toolImages[i], toolImages[0], `${host}: the same tool images`);
  });
});
