/**
 * guest/lib.sh's engine abstraction, run by the local bash against fake
 * `docker` and `podman` commands that log their arguments: scenarios say
 * `docker`, the host's recorded engine answers, with the same arguments and
 * labels; Podman starts trial containers through its CLI with --network none.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

const LIB = resolve(import.meta.dirname, '..', '..', '..', 'guest', 'lib.sh');
const work = mkdtempSync(join(tmpdir(), 'layerlab-stacks-engine-'));
after(() => rmSync(work, { recursive: true, force: true }));

const bin = join(work, 'bin');
mkdirSync(bin);
for (const engine of ['docker', 'podman']) {
  // Each fake logs "<engine> <args...>" and succeeds.
  writeFileSync(join(bin, engine), `#!/bin/sh\necho "${engine} $*" >> "$ENGINE_LOG"\n`);
  chmodSync(join(bin, engine), 0o755);
}

/** Runs `body` after sourcing lib.sh with LL_ENGINE as given; returns what the fake engines were asked. */
function engineCalls(engine: string, body: string): string[] {
  const log = join(work, `${engine}-${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(log, '');
  const result = spawnSync('bash', ['-c', `set -euo pipefail; source "$1"; ${body}`, '_', LIB], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, ENGINE_LOG: log, LL_ENGINE: engine, LL_LAB: 'lab1' },
  });
  assert.equal(result.status, 0, result.stderr);
  return readFileSync(log, 'utf8').trim().split('\n').filter(Boolean);
}

describe('guest/lib.sh: one engine abstraction', () => {
  it('the docker wrapper sends the same command, labels included, to the host’s engine', () => {
    const run = 'docker run --rm --network none img true; docker volume create v1; docker inspect x';
    assert.deepEqual(engineCalls('podman', run), [
      'podman run --label layerlab.lab=lab1 --rm --network none img true',
      'podman volume create --label layerlab.lab=lab1 v1',
      'podman inspect x',
    ]);
    assert.deepEqual(engineCalls('docker', run), [
      'docker run --label layerlab.lab=lab1 --rm --network none img true',
      'docker volume create --label layerlab.lab=lab1 v1',
      'docker inspect x',
    ]);
  });

  it('Podman starts a trial container through its CLI with --network none, not the Docker socket', () => {
    const out = join(work, 'out.txt');
    const calls = engineCalls(
      'podman',
      // The mount as ll_mount_setup describes a layer trial (no host folder made here).
      `LL_MOUNT_TYPE=''; LL_MOUNT_TARGET=/data; LL_MOUNT_ARGS=(--workdir /data); ll_container_run ll-t1 img ${out} ${out}.err fio --x`,
    );
    assert.deepEqual(calls, [
      'podman run --label layerlab.lab=lab1 --rm --name ll-t1 --network none --user 0 --workdir /data img fio --x',
    ]);
  });

  it('refuses an engine it does not know', () => {
    const result = spawnSync('bash', ['-c', 'source "$1"; ll_engine ps', '_', LIB], {
      encoding: 'utf8',
      env: { ...process.env, LL_ENGINE: 'rkt' },
    });
    assert.notEqual(result.status, 0);
    assert.match(result.stderr, /unknown engine rkt \(expected docker or podman\)/);
  });
});
