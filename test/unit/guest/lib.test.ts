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

/** Runs `body` after sourcing lib.sh with `env`; returns the exit status and stderr. */
function libRun(body: string, env: Record<string, string>) {
  return spawnSync('bash', ['-c', `set -euo pipefail; source "$1"; ${body}`, '_', LIB], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
}

describe('guest/lib.sh: ll_phase', () => {
  it('appends "<phase> <seconds>" to $LL_OUT/phases, now or at the time given', () => {
    const out = mkdtempSync(join(work, 'phase-'));
    const r = libRun('ll_phase mount; ll_phase work 1700000000.250000', { LL_OUT: out });
    assert.equal(r.status, 0, r.stderr);
    const lines = readFileSync(join(out, 'phases'), 'utf8').split('\n');
    assert.match(lines[0] ?? '', /^mount [0-9]+\.[0-9]{6}$/);
    assert.equal(lines[1], 'work 1700000000.250000');
    assert.equal(lines[2], '', 'one line each, ending in a newline');
  });

  it("a locale's decimal comma becomes a point", () => {
    const out = mkdtempSync(join(work, 'phase-'));
    const r = libRun('ll_phase start 1700000000,5', { LL_OUT: out });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(readFileSync(join(out, 'phases'), 'utf8'), 'start 1700000000.5\n');
  });

  it('starts no process (a process costs tens of milliseconds under TCG): it works with no PATH', () => {
    const out = mkdtempSync(join(work, 'phase-'));
    const r = libRun('PATH=/nonexistent; ll_phase mount; ll_phase end', { LL_OUT: out });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(readFileSync(join(out, 'phases'), 'utf8').split('\n').length, 3, 'both marks written');
  });

  it('does nothing outside a trial (no LL_OUT)', () => {
    const r = libRun('unset LL_OUT; ll_phase mount; echo ok', {});
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'ok\n');
  });
});

describe('guest/lib.sh: ll_phase never fails a trial', () => {
  it('an output folder it cannot write to: no error, no message, the script goes on', () => {
    const r = libRun('ll_phase mount; echo on', { LL_OUT: join(work, 'no-such-folder') });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'on\n');
    assert.equal(r.stderr, '');
  });
});
