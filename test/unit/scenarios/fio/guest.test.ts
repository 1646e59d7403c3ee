/**
 * lab/scenarios/fio/guest.sh in bash on this machine, with a stand-in for the
 * docker CLI that logs its calls and keeps one container's state: the fresh
 * path and the kept path (container: kept, layout: per-trial or once) across
 * a cell's trials, a failed trial, and the run's end (guest/drop-kept.sh).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import { guestSandbox } from '../../guest-sandbox.ts';

// Nothing outside the temporary root: layerlab's folders and the shared-folder mount points.
const box = guestSandbox('fio-guest', {
  scenarios: ['fio'],
  guestFiles: ['drop-kept.sh'],
  libTail: (
    root,
  ) => `LL_STATE=${JSON.stringify(join(root, 'state'))}; LL_BIND_ROOT=${JSON.stringify(join(root, 'bind'))}
LL_SHARE_ROOT=${JSON.stringify(join(root, 'share'))}; LL_NFS_ROOT=$LL_SHARE_ROOT; LL_9P_ROOT=$LL_SHARE_ROOT
ll_engine_up() { return 0; }`,
});
const fake = join(box.root, 'fake');
const out = join(box.root, 'out');
const bindRoot = join(box.root, 'bind');
for (const dir of [fake, out, bindRoot]) mkdirSync(dir);
// The docker CLI: every call logged; `run --rm` (the fresh path's CLI start) prints fio's JSON and
// leaves nothing, unless told to fail as the engine does (125), leaving its container; `run -d` starts
// "the" container, `rm -f` removes it, `ps` lists it while it runs (when its labels match the filters
// asked), `exec` prints fio's JSON or fails when told to; volumes are files volume-<name>.
box.fake(
  'docker',
  `printf '%s\\n' "$*" >> "$FAKE/calls"
case "$1" in
  run)
    if [[ " $* " == *" --rm "* ]]; then
      if [ -f "$FAKE/run-fails" ]; then printf '%s\\n' "$*" > "$FAKE/container"; echo 'docker: fake' >&2; exit 125; fi
      echo '{"jobs":[]}'
    else printf '%s\\n' "$*" > "$FAKE/container"; echo c0ffee; fi ;;
  ps)
    [ -f "$FAKE/container" ] || exit 0
    for arg in "$@"; do
      case "$arg" in label=*=*) grep -q -- "--label \${arg#label=}" "$FAKE/container" || exit 0 ;; esac
    done
    echo c0ffee ;;
  rm) rm -f "$FAKE/container" ;;
  exec) if [ -f "$FAKE/exec-fails" ]; then echo 'fio: failed' >&2; exit 1; fi; echo '{"jobs":[]}' ;;
  volume)
    case "$2" in
      create) : > "$FAKE/volume-\${!#}"; echo "\${!#}" ;;
      rm) rm -f "$FAKE/volume-\${!#}" ;;
    esac ;;
esac
`,
);
// The Engine API over curl (guest-sandbox.ts): a create records the container (its body), the list
// answers with it while it exists, volumes are files volume-<name>, fio's output a log stream.
box.fakeEngineApi();

const JOBS = { seqwrite: 'seqwrite:write:seq', randread: 'randread:randread:rand' };

/** One trial of fio's guest script as run-trial.sh starts it; returns its status and docker's calls. */
function trial(id: string, env: Record<string, string>, jobs = [JOBS.seqwrite, JOBS.randread]) {
  const r = spawnSync('bash', [box.script('fio')], {
    env: {
      PATH: box.path,
      FAKE: fake,
      LL_OUT: out,
      LL_MOUNT: 'volume',
      LL_TRIAL: id,
      LL_SCENARIO: 'fio',
      LL_LAB: 'lab1',
      LL_RUN: 'run1',
      LL_ENGINE: 'docker',
      LL_CONTAINER_START: 'cli',
      LL_IMAGE_FIO: 'fio:tag',
      LL_P_SIZE: '33554432',
      LL_P_RUNTIME: '2',
      LL_P_RAMP: '1',
      LL_P_BS_SEQ: '1048576',
      LL_P_BS_RAND: '4096',
      LL_P_IODEPTH: '16',
      LL_P_JOBS: jobs.join(' '),
      ...env,
    },
    encoding: 'utf8',
  });
  const calls = existsSync(join(fake, 'calls')) ? readFileSync(join(fake, 'calls'), 'utf8').trim().split('\n') : [];
  rmSync(join(fake, 'calls'), { force: true });
  return { code: r.status, stderr: r.stderr, calls };
}

const verbs = (calls: string[]) => calls.map((c) => c.split(' ').slice(0, 2).join(' '));

describe('lab/scenarios/fio/guest.sh', () => {
  beforeEach(() => {
    // The stand-ins' state and the trial's output start empty.
    for (const dir of [fake, out]) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir);
    }
  });

  it('fresh with LL_CONTAINER_START=cli: docker run --rm and a volume of its own every trial, removed after it', () => {
    const r = trial('r1-a-fio-volume', {});
    assert.equal(r.code, 0, r.stderr);
    assert.ok(
      r.calls.some((c) => c.startsWith('run ') && c.includes('--rm') && c.includes('ll-r1-a-fio-volume')),
      `a docker run --rm per trial: ${r.calls.join(' | ')}`,
    );
    assert.deepEqual(
      verbs(r.calls),
      ['volume rm', 'volume create', 'run --label', 'volume rm'],
      'the volume made, fio run, the volume removed: no docker rm -f of a container --rm removed already',
    );
    assert.ok(!existsSync(join(fake, 'volume-ll-r1-a-fio-volume')), "the trial's volume is removed");
    // The engine's own failure (125) may leave the container: the trap removes it.
    writeFileSync(join(fake, 'run-fails'), '');
    const failed = trial('r2-a-fio-volume', {});
    assert.equal(failed.code, 125, failed.stderr);
    assert.ok(failed.calls.includes('rm -f ll-r2-a-fio-volume'), `the container removed: ${failed.calls.join(' | ')}`);
    assert.ok(!existsSync(join(fake, 'container')), 'nothing left of the container');
    assert.ok(!existsSync(join(fake, 'volume-ll-r2-a-fio-volume')), 'nor of the volume');
  });

  /** The log stream of a fio that wrote `stdout` and `stderr`, one frame each (guest/lib.sh ll_container_output). */
  const logStream = (stdout: string, stderr: string) =>
    Buffer.concat(
      [
        [1, stdout],
        [2, stderr],
      ].map(([stream, text]) => {
        const body = Buffer.from(text as string);
        const head = Buffer.alloc(8);
        head.writeUInt8(stream as number, 0);
        head.writeUInt32BE(body.length, 4);
        return Buffer.concat([head, body]);
      }),
    );
  const API = { LL_CONTAINER_START: '' };
  const gone = (id: string) => {
    assert.ok(!existsSync(join(fake, 'container')), `the container ll-${id} is removed`);
    assert.ok(!existsSync(join(fake, `volume-ll-${id}`)), `the volume ll-${id} is removed`);
  };
  const noCli = (calls: string[]) =>
    assert.deepEqual(
      calls.filter((c) => !c.startsWith('curl ')),
      [],
      `no docker CLI start: ${calls.join(' | ')}`,
    );

  it('fresh through the Engine API (the default): no docker CLI at all; output, phases and removal as before', () => {
    writeFileSync(join(fake, 'logs.1'), logStream('{"jobs":[]}\n', 'fio: warning ✓\n'));
    const r = trial('r1-a-fio-volume', API);
    assert.equal(r.code, 0, r.stderr);
    noCli(r.calls);
    assert.equal(
      r.calls.length,
      6,
      `one curl each: volume, create and start, wait, logs, delete, volume removed: ${r.calls.join(' | ')}`,
    );
    assert.equal(readFileSync(join(out, 'fio.json'), 'utf8'), '{"jobs":[]}\n', "fio's stdout");
    assert.equal(readFileSync(join(out, 'fio.stderr'), 'utf8'), 'fio: warning ✓\n', "fio's stderr");
    assert.match(
      r.calls[0] ?? '',
      /"Labels":\{"layerlab.lab":"lab1","layerlab.run":"run1"\}\} http:\/\/docker\/volumes\/create$/,
    );
    const phases = readFileSync(join(out, 'phases'), 'utf8').replace(/ [0-9.]+/g, '');
    assert.equal(phases, 'mount\nstart\nwork\noutput\ncleanup\ncleanup\n', 'the phases where they were taken');
    gone('r1-a-fio-volume');
  });

  it('through the Engine API, fio fails: the trial fails, container and volume removed, no docker CLI', () => {
    writeFileSync(join(fake, 'exit-status'), '1');
    writeFileSync(join(fake, 'logs.1'), logStream('', 'fio: bad\n'));
    const r = trial('r1-a-fio-volume', API);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(readFileSync(join(out, 'fio.stderr'), 'utf8'), 'fio: bad\n', "fio's stderr kept");
    noCli(r.calls);
    gone('r1-a-fio-volume');
  });

  for (const [what, setUp, why] of [
    [
      'its log stream cut short',
      () => writeFileSync(join(fake, 'logs.1'), logStream('{"jobs":[]}', '').subarray(0, 12)),
      /the log stream ends inside a frame/,
    ],
    ['its start refused', () => writeFileSync(join(fake, 'fail-start'), ''), /did not create and start container/],
  ] as const) {
    it(`through the Engine API, a failure before the container's removal (${what}): the trap removes it, and the volume`, () => {
      setUp();
      const r = trial('r1-a-fio-volume', API);
      assert.notEqual(r.code, 0, 'the trial fails');
      assert.match(r.stderr, why);
      noCli(r.calls);
      assert.match(
        r.calls.at(-2) ?? '',
        /-X DELETE http:\/\/docker\/containers\/ll-r1-a-fio-volume\?force=true&v=true$/,
        'removed by name, forced',
      );
      gone('r1-a-fio-volume');
    });
  }

  it('kept: the first trial of a cell makes its container, later trials only exec fio into it', () => {
    const first = trial('r1-a-fio-volume', { LL_P_CONTAINER: 'kept' });
    assert.equal(first.code, 0, first.stderr);
    const run = first.calls.find((c) => c.startsWith('run '));
    assert.ok(run, `the first trial starts the cell's container: ${first.calls.join(' | ')}`);
    for (const label of ['layerlab.lab=lab1', 'layerlab.run=run1', 'layerlab.kept=fio-volume']) {
      assert.ok(run.includes(`--label ${label}`), `the kept container carries ${label}: ${run}`);
    }
    assert.ok(run.includes('--name ll-keep-fio-volume') && run.endsWith('/bin/sleep infinity'), run);
    assert.ok(
      first.calls.some((c) => c.startsWith('volume create') && c.includes('layerlab.kept=fio-volume')),
      `its volume is labelled as kept: ${first.calls.join(' | ')}`,
    );
    const second = trial('r2-a-fio-volume', { LL_P_CONTAINER: 'kept' });
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(
      verbs(second.calls),
      ['ps -q', 'exec ll-keep-fio-volume'],
      "found again, fio exec'd: nothing made",
    );
    const exec = second.calls[1] ?? '';
    assert.ok(exec.endsWith('--stonewall --unlink=1'), `the last job unlinks the file (layout per-trial): ${exec}`);
    assert.equal(readFileSync(join(out, 'fio.json'), 'utf8').trim(), '{"jobs":[]}', "fio's output is the trial's");
  });

  it('kept through the Engine API: looked up by its labels with curl, made with networking disabled', () => {
    const env = { LL_P_CONTAINER: 'kept', LL_CONTAINER_START: '' };
    const first = trial('r1-a-fio-volume', env);
    assert.equal(first.code, 0, first.stderr);
    const lookup = first.calls.find((c) => c.includes('containers/json')) ?? '';
    assert.ok(
      lookup.includes(
        'filters={"label":["layerlab.lab=lab1","layerlab.run=run1","layerlab.kept=fio-volume"],"status":["running"]}',
      ),
      `the lookup filters on lab, run and cell: ${lookup}`,
    );
    const create = readFileSync(join(fake, 'container'), 'utf8');
    assert.match(create, /"Cmd":\["\/bin\/sleep","infinity"\]/);
    assert.match(create, /"layerlab.kept":"fio-volume"/);
    assert.match(create, /"NetworkDisabled":true/);
    const second = trial('r2-a-fio-volume', env);
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(
      second.calls.map((c) => (c.startsWith('curl') ? 'curl' : c.split(' ').slice(0, 2).join(' '))),
      ['curl', 'exec ll-keep-fio-volume'],
      "found by one curl call, fio exec'd",
    );
  });

  it('kept: a container of another run is not reused', () => {
    assert.equal(trial('r1-a-fio-volume', { LL_P_CONTAINER: 'kept', LL_RUN: 'run0' }).code, 0);
    const r = trial('r1-a-fio-volume', { LL_P_CONTAINER: 'kept' });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(
      r.calls.some((c) => c.startsWith('rm -f')),
      `the old run's container removed: ${r.calls.join(' | ')}`,
    );
    assert.ok(
      r.calls.some((c) => c.startsWith('run ') && c.includes('layerlab.run=run1')),
      'a new one made',
    );
  });

  it('kept with layout once: the file stays (no unlink)', () => {
    const r = trial('r1-a-fio-volume', { LL_P_CONTAINER: 'kept', LL_P_LAYOUT: 'once' }, [JOBS.randread]);
    assert.equal(r.code, 0, r.stderr);
    const exec = r.calls.find((c) => c.startsWith('exec ')) ?? '';
    assert.ok(exec.endsWith('--stonewall') && !exec.includes('--unlink'), exec);
  });

  it('kept: a failed trial drops the cell, so that the next one starts from nothing', () => {
    assert.equal(trial('r1-a-fio-volume', { LL_P_CONTAINER: 'kept' }).code, 0);
    writeFileSync(join(fake, 'exec-fails'), '');
    const failed = trial('r2-a-fio-volume', { LL_P_CONTAINER: 'kept' });
    assert.notEqual(failed.code, 0, 'the trial fails with fio');
    assert.ok(!existsSync(join(fake, 'container')), `the kept container is removed: ${failed.calls.join(' | ')}`);
    rmSync(join(fake, 'exec-fails'));
    const next = trial('r3-a-fio-volume', { LL_P_CONTAINER: 'kept' });
    assert.ok(
      next.calls.some((c) => c.startsWith('run ')),
      'the next trial makes the cell anew',
    );
  });

  it('fresh with layout once is refused', () => {
    const r = trial('r1-a-fio-volume', { LL_P_LAYOUT: 'once' }, [JOBS.randread]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /container=fresh with layout=once/);
  });

  it("guest/drop-kept.sh (the run's end) removes the lab's kept containers and bind sources, by label", () => {
    assert.equal(trial('r1-a-fio-bind', { LL_P_CONTAINER: 'kept', LL_MOUNT: 'bind' }).code, 0);
    assert.ok(existsSync(join(bindRoot, 'll-keep-fio-bind')), 'the kept bind source exists');
    mkdirSync(join(bindRoot, 'owner-folder'));
    const r = spawnSync('bash', [join(box.root, 'guest', 'drop-kept.sh')], {
      env: { PATH: box.path, FAKE: fake, LL_LAB: 'lab1', LL_ENGINE: 'docker' },
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    const calls = readFileSync(join(fake, 'calls'), 'utf8');
    assert.match(calls, /ps -aq --filter label=layerlab.lab=lab1 --filter label=layerlab.kept/);
    assert.ok(!existsSync(join(fake, 'container')), 'the kept container is gone');
    assert.ok(!existsSync(join(bindRoot, 'll-keep-fio-bind')), 'its bind source is gone');
    assert.ok(existsSync(join(bindRoot, 'owner-folder')), 'nothing else in the bind root is touched');
  });
});
