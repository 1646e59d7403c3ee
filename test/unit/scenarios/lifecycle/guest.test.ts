/**
 * The lifecycle scenario's guest script, run by the local bash against a fake
 * engine and a fake `du`: the disk use it measures between phases is counted
 * again when the data root changed under du (Podman removes a stopped
 * container's files after `stop` returns; CI failed on it), and a measurement
 * that keeps failing stops the script with the reason instead of writing an
 * empty field and exiting 0. And its containers' network, the target's.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

const GUEST = resolve(import.meta.dirname, '..', '..', '..', '..', 'lab', 'scenarios', 'lifecycle', 'guest.sh');
const work = mkdtempSync(join(tmpdir(), 'layerlab-lifecycle-guest-'));
after(() => rmSync(work, { recursive: true, force: true }));

const bin = join(work, 'bin');
const dataRoot = join(work, 'data-root');
mkdirSync(bin);
mkdirSync(dataRoot);
const fake = (name: string, body: string) => {
  writeFileSync(join(bin, name), `#!/bin/bash\n${body}\n`);
  chmodSync(join(bin, name), 0o755);
};
// An engine that answers what guest.sh asks and does nothing else.
fake(
  'docker',
  `case "$1:$*" in
  info:*Driver*) echo overlay2 ;;
  info:*) echo "$FAKE_ROOT" ;;
  system:*) printf 'Images\\t17.2MB\\nContainers\\t2B\\nLocal Volumes\\t0B\\n' ;;
  run:*) echo "$*" >> "$RUN_LOG"; echo 0123abcd ;;
  inspect:*) echo "/c SizeRw=2 SizeRootFs=17200000" ;;
  network:*) [ -z "$NO_BRIDGE" ] || exit 1 ;;
esac`,
);
// du fails as it did in the guest until it has been called DU_FAILURES times.
fake(
  'du',
  `n=$(( $(cat "$DU_COUNT" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$DU_COUNT"
if [ "$n" -le "$DU_FAILURES" ]; then echo "du: fts_read failed: $FAKE_ROOT/overlay: No such file or directory" >&2; exit 1; fi
printf '28704768\\t%s\\n' "$FAKE_ROOT"`,
);
fake('sleep', 'exit 0');

/** Runs guest.sh for two containers; du fails its first `duFailures` calls; `env` added to the trial's. */
function runGuest(duFailures: number, diskUse = '1', env: Record<string, string> = {}) {
  const out = mkdtempSync(join(work, 'out-'));
  const result = spawnSync('bash', [GUEST], {
    encoding: 'utf8',
    env: {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      FAKE_ROOT: dataRoot,
      DU_COUNT: join(out, 'du-count'),
      RUN_LOG: join(out, 'runs'),
      DU_FAILURES: String(duFailures),
      LL_ENGINE: 'docker',
      LL_LAB: 'lab1',
      LL_OUT: out,
      LL_TRIAL: 't1',
      LL_IMAGE_SHELL: 'layerlab/shell:1',
      // No LL_IMAGE_CHURN: without churn the lab loads no churn image (lifecycle's toolImagesFor).
      LL_P_CONTAINERS: '2',
      LL_P_CHURN_CONTAINERS: '0',
      LL_P_IMAGE: 'small',
      LL_P_DISK_USE: diskUse,
      ...env,
    },
  });
  // None when the script stopped before its first row.
  const tsv = readFileSync(join(out, 'lifecycle.tsv'), { encoding: 'utf8', flag: 'a+' }).trim().split('\n');
  return {
    status: result.status,
    stderr: result.stderr,
    header: tsv[0] ?? '',
    rows: tsv.slice(1).map((line) => line.split('\t')),
    duCalls: Number(readFileSync(join(out, 'du-count'), { encoding: 'utf8', flag: 'a+' }) || 0),
    /** The arguments of every `docker run`, one line each. */
    runs: readFileSync(join(out, 'runs'), { encoding: 'utf8', flag: 'a+' }).trim().split('\n').filter(Boolean),
  };
}

describe('lifecycle guest.sh: disk use between phases', () => {
  it('du failing while the tree changes is counted again: every phase has its byte count', () => {
    const { status, stderr, rows } = runGuest(3);
    assert.equal(status, 0, stderr);
    assert.equal(stderr.match(/fts_read failed.*; counting again/g)?.length, 3, `each retry said why: ${stderr}`);
    assert.deepEqual(
      rows.map((r) => r[0]),
      ['start', 'run', 'inspect', 'stop', 'rm'],
    );
    assert.ok(
      rows.every((r) => r[3] === '28704768'),
      `data_root_bytes in every row: ${JSON.stringify(rows)}`,
    );
  });

  it('du failing every time stops the script, non-zero, with du’s own message; no row with an empty count', () => {
    const { status, stderr, rows } = runGuest(1000);
    assert.notEqual(status, 0, 'the trial fails');
    assert.match(stderr, /du of the data root .* failed 5 times, the last: du: fts_read failed/);
    assert.deepEqual(rows, [], 'nothing measured, nothing written');
  });
});

describe('lifecycle guest.sh: diskUse: false', () => {
  it('times the four phases without measuring the disk: no du, no disk columns, no start row', () => {
    const { status, stderr, header, rows, duCalls } = runGuest(0, '0');
    assert.equal(status, 0, stderr);
    assert.equal(header, 'phase\tcontainers\tseconds', 'the header names no disk column');
    assert.deepEqual(
      rows.map((r) => r[0]),
      ['run', 'inspect', 'stop', 'rm'],
    );
    assert.ok(
      rows.every((r) => r.length === 3 && Number(r[2]) >= 0),
      `phase, containers and seconds only: ${JSON.stringify(rows)}`,
    );
    assert.equal(duCalls, 0, 'du never ran');
  });
});

describe("lifecycle guest.sh: the target's container network (LL_CONTAINER_NETWORK)", () => {
  /** The `docker run`s of a trial of two timed containers and two churning ones. */
  const runs = (network?: string) => {
    const env: Record<string, string> = { LL_P_CHURN_CONTAINERS: '2', LL_IMAGE_CHURN: 'layerlab/churn:1' };
    if (network) env.LL_CONTAINER_NETWORK = network;
    const r = runGuest(0, '0', env);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.runs.length, 4, `two timed containers, two churning: ${r.runs.join(' / ')}`);
    return r.runs;
  };

  it("default (aws): every container on the engine's default network, as seed 004's `docker run -h … -d`", () => {
    for (const run of runs('default')) {
      assert.doesNotMatch(run, /--network/, `no --network: ${run}`);
      assert.match(run, /^run --label layerlab\.lab=lab1 -d --name ll-t1-/, `a detached, labelled container: ${run}`);
    }
  });

  it('none (local, static; also when unset): every container, timed and churning, with --network none', () => {
    for (const network of ['none', undefined]) {
      for (const run of runs(network)) {
        assert.match(run, / --network none layerlab\/(shell|churn):1 /, `${network ?? 'unset'}: ${run}`);
      }
    }
  });

  it('default on a daemon without its bridge (prepared before) fails before a container starts, saying what to do', () => {
    const r = runGuest(0, '0', { LL_CONTAINER_NETWORK: 'default', NO_BRIDGE: '1' });
    assert.notEqual(r.status, 0, 'the trial fails');
    assert.match(r.stderr, /dockerd on this host has none .*run `layerlab down` and `layerlab up`/);
    assert.deepEqual(r.runs, [], 'no container started');
  });

  it('any other value fails the trial before a container starts, naming it as ll_docker_start does (guest/lib.sh)', () => {
    const r = runGuest(0, '0', { LL_CONTAINER_NETWORK: 'bridge' });
    assert.notEqual(r.status, 0, 'the trial fails');
    assert.match(
      r.stderr,
      /LL_CONTAINER_NETWORK=bridge: expected none or default, the target's container network as lab\/catalog\.ts CONTAINER_NETWORK sets it/,
    );
    assert.deepEqual(r.runs, [], 'no container started');
  });
});
