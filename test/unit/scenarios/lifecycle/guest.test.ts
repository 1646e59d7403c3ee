/**
 * The lifecycle scenario's guest script, run by the local bash against a fake
 * engine and a fake `du`: the disk use it measures between phases is counted
 * again when the data root changed under du (Podman removes a stopped
 * container's files after `stop` returns; CI failed on it), and a measurement
 * that keeps failing stops the script with the reason instead of writing an
 * empty field and exiting 0. And its containers' network, the target's.
 * And what it spends outside its timed phases, against a fake engine whose CLI
 * and Engine API (curl) share their containers: `docker info` only for the
 * disk use, and once; the first cleanup's listing through the API where it is
 * used; none on exit once `rm` got through; and, whatever fails, nothing of
 * the trial left and nothing of the owner's removed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

const GUEST = resolve(import.meta.dirname, '..', '..', '..', '..', 'lab', 'scenarios', 'lifecycle', 'guest.sh');
const LIB = resolve(import.meta.dirname, '..', '..', '..', '..', 'guest', 'lib.sh');
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
/**
 * Shared by the fake engine CLI and the fake Engine API: the engine's
 * containers, one file each in $STATE/containers named by the container's id,
 * holding "<name> <running|exited> <label>…"; every call logged as one line
 * "<command> <args>" in $CALLS.
 */
const ENGINE_STATE = `c="$STATE/containers"
mkdir -p "$c"
# The id of container $1 (a name or an id); fails when there is none.
find_c() {
  local f n
  if [ -f "$c/$1" ]; then echo "$1"; return 0; fi
  for f in "$c"/*; do
    [ -e "$f" ] || continue
    read -r n _ < "$f"
    if [ "$n" = "$1" ]; then echo "\${f##*/}"; return 0; fi
  done
  return 1
}
# The ids of the containers with label key $1 whose names match $2 (running only unless $3 is all).
list_c() {
  local f n st labels
  for f in "$c"/*; do
    [ -e "$f" ] || continue
    read -r n st labels < "$f"
    [[ $n =~ $2 ]] || continue
    [[ " $labels " == *" $1="* ]] || continue
    [ "$3" = all ] || [ "$st" = running ] || continue
    echo "\${f##*/}"
  done
}`;
// An engine CLI (docker, or podman: the same script) that keeps its containers in $STATE.
fake(
  'docker',
  `printf '%s %s\\n' "\${0##*/}" "$*" >> "$CALLS"
${ENGINE_STATE}
case "$1" in
  info) case "$*" in *GraphRoot*) echo "$FAKE_ROOT" ;; *) echo "\${FAKE_DRIVER:-overlay2} $FAKE_ROOT" ;; esac ;;
  system) printf 'Images\\t17.2MB\\nContainers\\t2B\\nLocal Volumes\\t0B\\n' ;;
  run)
    echo "$*" >> "$RUN_LOG"
    name='' labels=''
    shift
    while [ "$#" -gt 0 ]; do
      case "$1" in --name) name="$2"; shift ;; --label) labels+=" $2"; shift ;; esac
      shift
    done
    if find_c "$name" > /dev/null; then echo "Conflict: name $name in use" >&2; exit 125; fi
    id="$(printf '%s' "$name" | sha256sum | cut -c1-64)"
    if [ -n "$FAIL_RUN" ] && [[ $name == *"$FAIL_RUN" ]]; then
      # Made, but not started: as a start that fails leaves it.
      echo "$name created$labels" > "$c/$id"; echo "cannot start $name" >&2; exit 125
    fi
    echo "$name running$labels" > "$c/$id"
    echo "$id" ;;
  inspect) echo "/c SizeRw=2 SizeRootFs=17200000" ;;
  stop)
    [ -z "$FAIL_STOP" ] || { echo "cannot stop" >&2; exit 1; }
    shift
    for x in "$@"; do id="$(find_c "$x")"; read -r n _ labels < "$c/$id"; echo "$n exited $labels" > "$c/$id"; done ;;
  rm)
    # FAIL_RM: the timed \`docker rm\` fails; a forced one (cleanup's) does not.
    [ -z "$FAIL_RM" ] || [ "$2" = -f ] || { echo "cannot remove" >&2; exit 1; }
    shift
    force=''
    if [ "$1" = -f ]; then force=1; shift; fi
    status=0
    for x in "$@"; do
      if id="$(find_c "$x")"; then rm "$c/$id"; elif [ -z "$force" ]; then echo "No such container: $x" >&2; status=1; fi
    done
    exit "$status" ;;
  ps)
    all='' label='' re=''
    for a in "$@"; do case "$a" in -a*) all=all ;; label=*) label="\${a#label=}" ;; name=*) re="\${a#name=}" ;; esac; done
    list_c "$label" "$re" "$all" ;;
  network) [ -z "$NO_BRIDGE" ] || exit 1 ;;
esac`,
);
symlinkSync(join(bin, 'docker'), join(bin, 'podman'));
// The Docker Engine API over the same containers: a listing with filters (and
// all=1), and forced removal by id or name; requests separated by --next.
fake(
  'curl',
  `printf 'curl %s\\n' "$*" >> "$CALLS"
${ENGINE_STATE}
request() {
  local method=GET url='' filters='' all='' label='' re='' body sep='' id label_re='"label":\\["([^"]*)"\\]' name_re='"name":\\["([^"]*)"\\]'
  while [ "$#" -gt 0 ]; do
    case "$1" in
      -X) method="$2"; shift ;;
      --data) [ "$2" != all=1 ] || all=all; shift ;;
      --data-urlencode) filters="\${2#filters=}"; shift ;;
      -o | -H | --unix-socket) shift ;;
      http://*) url="$1" ;;
    esac
    shift
  done
  [ -z "$API_DOWN" ] || { echo "curl: (7) Couldn't connect to server" >&2; exit 7; }
  case "$method \${url#http://docker}" in
    'GET /containers/json')
      [[ $filters =~ $label_re ]] && label="\${BASH_REMATCH[1]}"
      [[ $filters =~ $name_re ]] && re="\${BASH_REMATCH[1]}"
      body='['
      for id in $(list_c "$label" "$re" "$all"); do
        read -r n _ < "$c/$id"
        body+="$sep{\\"Id\\":\\"$id\\",\\"Names\\":[\\"/$n\\"],\\"NetworkSettings\\":{\\"Networks\\":{\\"none\\":{\\"NetworkID\\":\\"$(printf 'e%.0s' {1..64})\\"}}}}"
        sep=,
      done
      printf '%s]' "$body" ;;
    'DELETE /containers/'*)
      id="\${url#http://docker/containers/}"
      if id="$(find_c "\${id%%\\?*}")"; then rm "$c/$id"; else printf '{"message":"No such container"}'; fi ;;
    *) printf '{"message":"page not found"}' ;;
  esac
}
args=()
for arg in "$@" --next; do
  if [ "$arg" = --next ]; then request "\${args[@]}"; args=(); else args+=("$arg"); fi
done`,
);
// du fails as it did in the guest until it has been called DU_FAILURES times.
fake(
  'du',
  `n=$(( $(cat "$DU_COUNT" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$DU_COUNT"
if [ "$n" -le "$DU_FAILURES" ]; then echo "du: fts_read failed: $FAKE_ROOT/overlay: No such file or directory" >&2; exit 1; fi
printf '28704768\\t%s\\n' "$FAKE_ROOT"`,
);
fake('sleep', 'exit 0');
fake('lvs', "echo '  12.50 3.10 1073741824'");

/** A container in the fake engine before the trial starts: name, labels. */
type Leftover = { name: string; labels: string[] };

/** Runs guest.sh for two containers; du fails its first `duFailures` calls; `env` added to the trial's. */
function runGuest(duFailures: number, diskUse = '1', env: Record<string, string> = {}, before: Leftover[] = []) {
  const out = mkdtempSync(join(work, 'out-'));
  const state = join(out, 'state');
  mkdirSync(join(state, 'containers'), { recursive: true });
  for (const [i, c] of before.entries()) {
    writeFileSync(
      join(state, 'containers', String(i).repeat(64).slice(0, 64)),
      `${[c.name, 'exited', ...c.labels].join(' ')}\n`,
    );
  }
  const result = spawnSync('bash', [GUEST], {
    encoding: 'utf8',
    env: {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      FAKE_ROOT: dataRoot,
      DU_COUNT: join(out, 'du-count'),
      RUN_LOG: join(out, 'runs'),
      STATE: state,
      CALLS: join(out, 'calls'),
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
  const lines = (file: string) =>
    readFileSync(join(out, file), { encoding: 'utf8', flag: 'a+' }).trim().split('\n').filter(Boolean);
  return {
    status: result.status,
    stderr: result.stderr,
    header: tsv[0] ?? '',
    rows: tsv.slice(1).map((line) => line.split('\t')),
    duCalls: Number(readFileSync(join(out, 'du-count'), { encoding: 'utf8', flag: 'a+' }) || 0),
    /** The arguments of every `docker run`, one line each. */
    runs: lines('runs'),
    /** Every engine CLI and curl call, in order: "<command> <args>". */
    calls: lines('calls'),
    /** The containers the engine holds at the end, "<name> <state> <labels>". */
    left: readdirSync(join(state, 'containers'))
      .map((id) => readFileSync(join(state, 'containers', id), 'utf8').trim())
      .sort(),
    /** The ll_phase marks' names, in order. */
    phases: lines('phases').map((line) => line.split(' ')[0]),
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
    assert.equal(r.stderr, `layerlab: ${networkRefusal('bridge')}\n`, 'the one message of ll_container_network');
    assert.deepEqual(r.runs, [], 'no container started');
    assert.deepEqual(r.calls, [], 'nothing asked of the engine');
  });
});

/** What guest/lib.sh's ll_container_network says of LL_CONTAINER_NETWORK=`value`: the one refusal. */
function networkRefusal(value: string): string {
  const r = spawnSync('bash', ['-c', 'source "$1"; ll_container_network', '_', LIB], {
    encoding: 'utf8',
    env: { ...process.env, LL_CONTAINER_NETWORK: value },
  });
  assert.notEqual(r.status, 0, 'll_container_network refuses it');
  assert.match(
    r.stderr,
    /^layerlab: LL_CONTAINER_NETWORK=\S+: expected none or default, .*lab\/catalog\.ts CONTAINER_NETWORK/,
  );
  return r.stderr.replace(/^layerlab: /, '').trimEnd();
}

/** The engine calls that list containers: `docker ps`, or GET /containers/json. */
const listings = (calls: string[]) => calls.filter((c) => / ps -aq |\/containers\/json/.test(c));
/** The trial's containers the engine still holds, and the owner's. */
const ours = (left: string[]) => left.filter((c) => c.startsWith('ll-t1-') && / layerlab\.lab=/.test(c));

describe('lifecycle guest.sh: what the trial spends outside its timed phases', () => {
  it('diskUse: false asks the engine nothing about its data root or driver: no `docker info`', () => {
    const r = runGuest(0, '0');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(
      r.calls.filter((c) => / info /.test(c)),
      [],
      `no docker info: ${r.calls.join(' | ')}`,
    );
  });

  it('diskUse: true asks Docker once, for the driver and the data root together', () => {
    const r = runGuest(0, '1');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(
      r.calls.filter((c) => / info /.test(c)),
      ['docker info --format {{.Driver}} {{.DockerRootDir}}'],
    );
    assert.ok(
      r.rows.every((row) => row[3] === '28704768' && row[7] === '-'),
      `the data root counted, no thin pool on overlay2: ${JSON.stringify(r.rows)}`,
    );
  });

  it('diskUse: true on devicemapper reads the thin pool the one `docker info` named', () => {
    const r = runGuest(0, '1', { FAKE_DRIVER: 'devicemapper' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.calls.filter((c) => / info /.test(c)).length, 1, 'one docker info');
    assert.ok(
      r.rows.every((row) => row.slice(7).join(' ') === '12.50 3.10 1073741824' && row[3] === '28704768'),
      `the thin pool's columns in every row: ${JSON.stringify(r.rows)}`,
    );
  });

  it("diskUse: true on Podman asks once for its graphroot (Podman's format), no thin pool", () => {
    const r = runGuest(0, '1', { LL_ENGINE: 'podman' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(
      r.calls.filter((c) => / info /.test(c)),
      ['podman info --format {{.Store.GraphRoot}}'],
    );
    assert.ok(
      r.rows.every((row) => row[3] === '28704768' && row[7] === '-'),
      `the graphroot counted: ${JSON.stringify(r.rows)}`,
    );
  });

  it('Docker with curl: the first cleanup lists through the Engine API (label and name, stopped ones too), no docker ps', () => {
    const r = runGuest(0, '0');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(
      r.calls.filter((c) => !/^docker (run|inspect|stop|rm) /.test(c)),
      [
        'curl --silent --show-error --fail-with-body --unix-socket /var/run/docker.sock -G --data all=1 --data-urlencode filters={"label":["layerlab.lab"],"name":["^ll-t1-"]} http://docker/containers/json',
      ],
      'one curl, nothing else besides the timed calls',
    );
  });

  for (const [how, env, cli] of [
    ['Podman', { LL_ENGINE: 'podman' }, 'podman'],
    ['LL_CONTAINER_START=cli', { LL_CONTAINER_START: 'cli' }, 'docker'],
  ] as const) {
    it(`${how}: the first cleanup lists through the CLI, as before, and no curl`, () => {
      const r = runGuest(0, '0', env);
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(listings(r.calls), [`${cli} ps -aq --filter label=layerlab.lab --filter name=^ll-t1-`]);
      assert.deepEqual(
        r.calls.filter((c) => c.startsWith('curl ')),
        [],
        'no curl',
      );
    });
  }

  for (const [how, env] of [
    ['API', {}],
    ['CLI', { LL_CONTAINER_START: 'cli' }],
  ] as const) {
    it(`${how}: a trial that got through rm lists nothing on exit: one listing in all, nothing left`, () => {
      const r = runGuest(0, '0', env);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(listings(r.calls).length, 1, `the first cleanup's only: ${r.calls.join(' | ')}`);
      assert.deepEqual(r.left, [], 'nothing left');
      assert.deepEqual(
        r.phases,
        ['cleanup', 'prepare', ...Array(4).fill(['work', 'output']).flat(), 'cleanup'],
        'the phases still marked',
      );
      // The timed calls, one process each, as the seed's procedure.
      assert.deepEqual(
        r.calls.filter((c) => /^docker (run|inspect|stop|rm) /.test(c)).map((c) => c.split(' ')[1]),
        ['run', 'run', 'inspect', 'stop', 'rm'],
      );
    });

    it(`${how}: churn containers are removed on exit by name, without a second listing`, () => {
      const r = runGuest(0, '0', { ...env, LL_P_CHURN_CONTAINERS: '2', LL_IMAGE_CHURN: 'layerlab/churn:1' });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(listings(r.calls).length, 1, `the first cleanup's only: ${r.calls.join(' | ')}`);
      assert.deepEqual(r.left, [], 'the churn containers are gone');
      const last = r.calls.at(-1) ?? '';
      if (how === 'API') {
        assert.match(
          last,
          /^curl .*-X DELETE http:\/\/docker\/containers\/ll-t1-churn-1\?force=true&v=true --next .*-X DELETE http:\/\/docker\/containers\/ll-t1-churn-2\?force=true&v=true$/,
        );
      } else {
        assert.equal(last, 'docker rm -f ll-t1-churn-1 ll-t1-churn-2');
      }
    });

    for (const [failure, failEnv] of [
      ['stop', { FAIL_STOP: '1' }],
      ['rm (the containers stopped)', { FAIL_RM: '1' }],
      ['the second churn start (its container made)', { FAIL_RUN: 'churn-2' }],
    ] as const) {
      it(`${how}: ${failure} fails: the trial fails and its containers are removed on exit, the owner's kept`, () => {
        const owner = { name: 'll-t1-mine', labels: [] };
        const r = runGuest(
          0,
          '0',
          { ...env, ...failEnv, LL_P_CHURN_CONTAINERS: '2', LL_IMAGE_CHURN: 'layerlab/churn:1' },
          [owner],
        );
        assert.notEqual(r.status, 0, 'the trial fails');
        assert.equal(listings(r.calls).length, 2, `listed at the start and on exit: ${r.calls.join(' | ')}`);
        assert.deepEqual(
          r.left,
          ['ll-t1-mine exited'],
          "nothing of the trial's left; the owner's unlabelled container kept",
        );
      });
    }

    it(`${how}: an earlier attempt's containers are removed at the start, and looked for again on exit`, () => {
      const r = runGuest(0, '0', env, [
        { name: 'll-t1-1', labels: ['layerlab.lab=lab1'] },
        { name: 'll-t1-churn-1', labels: ['layerlab.lab=lab1'] },
        { name: 'll-t2-1', labels: ['layerlab.lab=lab1'] },
      ]);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(listings(r.calls).length, 2, `listed at the start and on exit: ${r.calls.join(' | ')}`);
      assert.deepEqual(ours(r.left), [], "nothing of this trial's left");
      assert.deepEqual(
        r.left,
        ['ll-t2-1 exited layerlab.lab=lab1'],
        "another trial's container is not this trial's to remove",
      );
    });
  }

  it('an Engine API that does not answer stops the trial, saying so', () => {
    const r = runGuest(0, '0', { API_DOWN: '1' });
    assert.notEqual(r.status, 0, 'the trial fails');
    assert.match(
      r.stderr,
      /the Engine API did not list the containers labelled layerlab\.lab and named \^ll-t1-: .*is dockerd running/,
    );
    assert.deepEqual(r.runs, [], 'no container started');
  });
});
