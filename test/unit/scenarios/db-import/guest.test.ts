/**
 * lab/scenarios/db-import/guest.sh in bash on this machine, with a fake
 * `docker` (and `podman`) first on PATH that plays a MariaDB container, and a
 * stand-in Engine API (curl): how the script starts the server (untimed),
 * through the Engine API or the CLI, retries one failed start on a fresh copy
 * and gives up after a second with the server's own errors in its message;
 * that the API path runs no docker CLI but the execs around the timed import;
 * and what the output says of the dump, taken once per dump.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { parseDbImport } from '../../../../lab/scenarios/db-import/parse.ts';
import { FAKE_CONTAINER_ID, guestSandbox } from '../../guest-sandbox.ts';

const box = guestSandbox('db-import-guest', {
  scenarios: ['db-import'],
  libTail: (root) => `LL_WORK=${JSON.stringify(join(root, 'work'))}`,
});
const { root } = box;
const work = join(root, 'work');

// A dump and a template datadir as earlier trials on this host leave them, so
// only the server's start and the import run here.
mkdirSync(join(work, 'dumps'), { recursive: true });
const dump = join(work, 'dumps', 'wiki-1000.sql.gz');
spawnSync('sh', ['-c', `printf 'INSERT 1;\\n' | gzip > ${JSON.stringify(dump)}`]);
writeFileSync(join(work, 'dumps', 'wiki-1000.counts'), 'page\t2\nrevision\t3\ntext\t3\n');
mkdirSync(join(work, 'mariadb', '11.8', 'datadir'), { recursive: true });
writeFileSync(join(work, 'mariadb', '11.8', 'version'), 'mariadbd Ver 11.8.3\n');

/**
 * The fake engine's CLI (docker, and podman for a Podman host): every call logged as
 * "<command> <args>" in $FAKE/calls; `run -d` starts "container" number N (counted from 1 in
 * $FAKE/creates, which the Engine API's stand-in counts its creates in too); the ones listed in
 * FAKE_FAIL_STARTS exit at once and log InnoDB's refusal, the others answer queries. Every other
 * command does what the script needs.
 */
const engineCli = `set -euo pipefail
call="$*"
printf '%s %s\\n' "\${0##*/}" "\${call//$'\\n'/ }" >> "$FAKE/calls"
n="$(cat "$FAKE/creates" 2>/dev/null || echo 0)"
failed() { case " $FAKE_FAIL_STARTS " in *" $n "*) return 0 ;; esac; return 1; }
case "$1" in
  run) echo $((n + 1)) > "$FAKE/creates"; echo cid ;;
  exec)
    failed && exit 1
    if [[ "$*" == *"-N -e SELECT"* ]]; then printf '2\\t3\\t3\\n'; else cat > /dev/null || true; fi ;;
  inspect) if failed; then echo false; else echo true; fi ;;
  logs)
    if failed; then
      echo "2026-12-04 21:04:14 0 [ERROR] InnoDB: start $n failed"
      echo "2026-12-04 21:04:14 0 [ERROR] Unknown/unsupported storage engine: InnoDB"
      echo "2026-12-04 21:04:14 0 [ERROR] Aborting"
    else echo "ready for connections"; fi ;;
  *) ;; # rm, wait, volume: nothing to do here
esac
`;
box.fake('docker', engineCli);
box.fake('podman', engineCli);

// The Engine API's stand-in (guest-sandbox.ts), state in $FAKE: volumes, removals and, on its
// path, the server's container (its state and its log stream).
box.fakeEngineApi();

/** A container's log stream as the Engine API sends it: one frame per line, on stream 2 (stderr). */
function logStream(lines: readonly string[]): Buffer {
  return Buffer.concat(
    lines.map((line) => {
      const body = Buffer.from(`${line}\n`);
      const head = Buffer.alloc(8);
      head.writeUInt8(2, 0);
      head.writeUInt32BE(body.length, 4);
      return Buffer.concat([head, body]);
    }),
  );
}
// As the tool image's MariaDB (10.11, Debian 12) logged it in a seeds-tcg trial.
const READY_LOG = [
  '2026-12-05 18:07:04 0 [Note] Starting MariaDB 10.11.19-MariaDB-0+deb12u1 source revision 5843d84 as process 1',
  '2026-12-05 18:07:05 0 [Note] mariadbd: ready for connections.',
  "Version: '10.11.19-MariaDB-0+deb12u1'  socket: '/run/mysqld/mysqld.sock'  port: 0  Debian 12",
];
const failedLog = (n: number) => [
  `2026-12-04 21:04:14 0 [ERROR] InnoDB: start ${n} failed`,
  '2026-12-04 21:04:14 0 [ERROR] Unknown/unsupported storage engine: InnoDB',
  '2026-12-04 21:04:14 0 [ERROR] Aborting',
];

interface TrialOptions {
  /** Starts (from 1) whose server exits before it is ready, logging InnoDB's refusal. */
  failStarts?: readonly number[];
  /** How the server's container starts: the Engine API (the default where curl is) or the CLI. */
  start?: 'api' | 'cli';
  engine?: 'docker' | 'podman';
  /** The server's log while it runs, on the API path. */
  log?: readonly string[];
  env?: Record<string, string>;
}

function trial(id: string, options: TrialOptions = {}) {
  const out = join(root, 'out', id);
  const fake = join(root, 'fake', id);
  mkdirSync(out, { recursive: true });
  mkdirSync(fake, { recursive: true });
  const failStarts = options.failStarts ?? [];
  writeFileSync(join(fake, 'logs.1'), logStream(options.log ?? READY_LOG));
  for (const n of failStarts) {
    mkdirSync(join(fake, `c${n}`));
    writeFileSync(join(fake, `c${n}`, 'state'), 'exited');
    writeFileSync(join(fake, `c${n}`, 'logs.1'), logStream(failedLog(n)));
  }
  const r = spawnSync('bash', [box.script('db-import')], {
    encoding: 'utf8',
    env: {
      PATH: box.path,
      LL_OUT: out,
      LL_LAB: 'unit',
      LL_ENGINE: options.engine ?? 'docker',
      ...(options.start === 'cli' ? { LL_CONTAINER_START: 'cli' } : {}),
      LL_MOUNT: 'volume',
      LL_TRIAL: id,
      LL_IMAGE_MARIADB: 'layerlab/mariadb:11.8',
      LL_P_SQL_BYTES: '1000',
      FAKE: fake,
      FAKE_FAIL_STARTS: failStarts.join(' '),
      ...options.env,
    },
  });
  const starts = Number(readFileSync(join(fake, 'creates'), 'utf8'));
  const calls = readFileSync(join(fake, 'calls'), 'utf8').trim().split('\n');
  return { ...r, out, starts, calls, docker: calls.filter((c) => !c.startsWith('curl ')) };
}

for (const path of ['api', 'cli'] as const) {
  describe(`db-import guest.sh: the server start (${path} path)`, () => {
    it('a server that starts: one start, a result the parser takes', () => {
      const r = trial(`ok-${path}`, { start: path });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.starts, 1, 'one container started');
      const parsed = parseDbImport(readFileSync(join(r.out, 'db-import.tsv'), 'utf8'));
      assert.deepEqual(parsed.failures, [], 'the row counts match the dump');
      assert.ok(!existsSync(join(root, 'fake', `ok-${path}`, `volume-ll-ok-${path}`)), 'the volume removed');
    });

    it('one failed start: a second on a fresh copy, the first log kept, a warning on stderr', () => {
      const r = trial(`retry-${path}`, { start: path, failStarts: [1] });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.starts, 2, 'the server was started twice');
      assert.match(r.stderr, /warning: MariaDB did not start on mount volume; trying once more/);
      const first = readFileSync(join(r.out, 'mariadb-start-1.log'), 'utf8');
      assert.match(first, /InnoDB: start 1 failed/);
      assert.ok(first.startsWith('2026-12-04'), `the log without the stream's frame headers: ${JSON.stringify(first)}`);
      if (path === 'api') {
        const cli = r.docker.filter((c) => /^docker (run|inspect|wait|logs) /.test(c));
        assert.deepEqual(cli, [], 'its state and its log through the Engine API');
      }
      assert.deepEqual(parseDbImport(readFileSync(join(r.out, 'db-import.tsv'), 'utf8')).failures, []);
    });

    it("two failed starts: the trial fails, naming the server's first errors", () => {
      const r = trial(`fails-${path}`, { start: path, failStarts: [1, 2] });
      assert.equal(r.status, 1, 'the trial failed');
      assert.equal(r.starts, 2, 'no third start');
      const last = r.stderr.trim().split('\n').at(-1) ?? '';
      assert.match(last, /did not become ready on mount volume, twice \(first errors: .*InnoDB: start 2 failed/);
      assert.match(last, /Unknown\/unsupported storage engine: InnoDB/);
    });
  });
}

describe('db-import guest.sh through the Engine API', () => {
  it('no docker CLI around the timed import but its execs; one request starts the server with both mounts', () => {
    const r = trial('api');
    assert.equal(r.status, 0, r.stderr);
    const verbs = r.docker.map((c) => c.split(' ').slice(0, 3).join(' '));
    assert.deepEqual(
      verbs,
      ['docker exec ll-api', 'docker exec -i', 'docker exec ll-api'],
      `CREATE DATABASE, the timed import, the row counts; no run, inspect, wait or logs: ${r.docker.join(' | ')}`,
    );
    assert.match(r.docker[0] ?? '', /-e CREATE DATABASE wikidb$/, 'the first query creates the database');
    const create = r.calls.find((c) => c.includes('http://docker/containers/create?name=ll-api'));
    const body = create?.match(/--data-binary (\{.*\}) http:\/\/docker\/containers\/create/)?.[1];
    assert.ok(body, `the server created through the Engine API: ${r.calls.join(' | ')}`);
    const request = JSON.parse(body);
    assert.equal(request.HostConfig.NetworkMode, 'none', 'no network: no libnetwork sandbox');
    assert.deepEqual(
      request.HostConfig.Mounts,
      [
        { Type: 'volume', Source: 'll-api', Target: '/var/lib/mysql' },
        { Type: 'bind', Source: join(work, 'mariadb', '11.8', 'datadir'), Target: '/ll-template', ReadOnly: true },
      ],
      "the trial's storage and the template datadir, read-only",
    );
    assert.equal(request.WorkingDir, '/var/lib/mysql');
    assert.match(
      request.Cmd.join(' '),
      /cp -a --no-preserve=ownership \/ll-template\/\. \/var\/lib\/mysql\/.*exec mariadbd/s,
    );
    assert.ok(
      r.calls.some((c) => c.includes(`-X POST http://docker/containers/${FAKE_CONTAINER_ID}/stop?t=600`)),
      `the server stopped through the Engine API: ${r.calls.join(' | ')}`,
    );
    assert.match(
      readFileSync(join(r.out, 'mariadb.log'), 'utf8'),
      /^2026-12-05 .*\n.*mariadbd: ready for connections\.\n/,
    );
    const phases = readFileSync(join(r.out, 'phases'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' ')[0]);
    assert.deepEqual(phases, ['prepare', 'mount', 'start', 'prepare', 'work', 'output', 'cleanup'], 'its phases');
  });

  it('a server never ready within the limit: its state and log asked that many times, then the clear error', () => {
    const r = trial('never', {
      log: ['2026-12-05 18:07:04 0 [Note] InnoDB: Completed initialization of buffer pool'],
      env: { LL_DB_READY_POLLS: '2' },
    });
    assert.equal(r.status, 1, 'the trial failed');
    assert.equal(r.starts, 2, 'one more try on a fresh copy, no third');
    assert.equal(
      r.calls.filter((c) => c.includes(`/containers/${FAKE_CONTAINER_ID}/json `)).length,
      4,
      'two checks per start',
    );
    assert.deepEqual(r.docker, [], `no docker CLI at all: ${r.docker.join(' | ')}`);
    assert.match(r.stderr, /warning: MariaDB did not start on mount volume; trying once more/);
    const last = r.stderr.trim().split('\n').at(-1) ?? '';
    assert.match(
      last,
      /MariaDB did not become ready on mount volume, twice \(first errors: none logged; logs: mariadb-start-\*\.log\)/,
    );
    assert.match(readFileSync(join(r.out, 'mariadb-start-1.log'), 'utf8'), /Completed initialization of buffer pool/);
  });
});

describe('db-import guest.sh: the CLI path, unchanged', () => {
  /** The docker calls of the CLI path before the Engine API path existed (its start, checks, shutdown, log). */
  const cliCalls = (id: string) => [
    'rm -f ll-' + id,
    'volume rm -f ll-' + id,
    'volume create --label layerlab.lab=unit ll-' + id,
    'run --label layerlab.lab=unit -d --name ll-' + id,
    'exec ll-' + id + ' mariadb --user=root --socket=/run/mysqld/mysqld.sock -e SELECT 1',
    'exec ll-' + id + ' mariadb --user=root --socket=/run/mysqld/mysqld.sock -e CREATE DATABASE wikidb',
    'exec -i ll-' + id + ' mariadb --user=root --socket=/run/mysqld/mysqld.sock wikidb',
    'exec ll-' + id + ' mariadb --user=root --socket=/run/mysqld/mysqld.sock -N -e SELECT',
    'exec ll-' + id + ' mariadb --user=root --socket=/run/mysqld/mysqld.sock -e SHUTDOWN',
    'wait ll-' + id,
    'logs ll-' + id,
    'rm -f ll-' + id,
    'volume rm -f ll-' + id,
  ];
  for (const [id, options, command] of [
    ['cli', { start: 'cli' }, 'docker'],
    ['podman', { engine: 'podman' }, 'podman'],
  ] as const) {
    it(`${id === 'cli' ? 'LL_CONTAINER_START=cli' : 'a Podman host'}: docker run, exec'd checks, SHUTDOWN, wait and logs`, () => {
      const r = trial(id, options);
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(
        r.calls.filter((c) => c.startsWith('curl ')),
        [],
        'no Engine API request',
      );
      const expected = cliCalls(id);
      assert.equal(r.docker.length, expected.length, r.docker.join('\n'));
      r.docker.forEach((call, i) => {
        assert.ok(call.startsWith(`${command} ${expected[i]}`), `call ${i}: ${call} (expected ${expected[i]}…)`);
      });
      assert.match(
        r.docker[3] ?? '',
        / --network none --user 0 --workdir \/var\/lib\/mysql --mount type=volume,source=ll-\w+,target=\/var\/lib\/mysql --mount type=bind,source=\S+\/datadir,target=\/ll-template,readonly layerlab\/mariadb:11\.8 \/bin\/sh -c /,
      );
    });
  }
});

describe('db-import guest.sh: what the output says of the dump', () => {
  it('its sizes and sha256, taken once per dump and again when the dump is not the one recorded', () => {
    const meta = join(work, 'dumps', 'wiki-1000.meta');
    const expected = () => {
      const gz = readFileSync(dump);
      return [String(gz.length), String(gunzipSync(gz).length), createHash('sha256').update(gz).digest('hex')];
    };
    rmSync(meta, { force: true });
    const first = trial('meta-1');
    assert.equal(first.status, 0, first.stderr);
    const row = (out: string) =>
      readFileSync(join(out, 'db-import.tsv'), 'utf8').trim().split('\n')[1]?.split('\t') ?? [];
    assert.deepEqual(row(first.out).slice(2, 5), expected(), 'dump_bytes, sql_bytes, dump_sha256');
    assert.equal(readFileSync(meta, 'utf8'), `${expected().join('\t')}\n`, 'recorded beside the dump');
    // A recorded value the dump no longer matches: taken again.
    writeFileSync(meta, `1\t2\t${'0'.repeat(64)}\n`);
    const again = trial('meta-2');
    assert.equal(again.status, 0, again.stderr);
    assert.deepEqual(row(again.out).slice(2, 5), expected(), 'taken again from the dump');
    // The record is what the output says once the size matches (not taken again).
    writeFileSync(meta, `${expected()[0]}\t7\t${'a'.repeat(64)}\n`);
    const kept = trial('meta-3');
    assert.deepEqual(row(kept.out).slice(2, 5), [expected()[0], '7', 'a'.repeat(64)], 'read from the record');
    rmSync(meta);
  });
});

/*
 * Issue 35 N11: on hostshare-nfs every request of the guest acts as one
 * unprivileged uid (All_Squash), so the server refuses chown, and GNU cp run
 * as root treats a refused chown as an error ("failed to preserve
 * ownership", exit 1). The fake engine above never runs the copy; the copy
 * on a real share runs in the scenarios e2e.
 */
describe('db-import guest.sh: the datadir copy', () => {
  it('keeps modes and times but does not ask to keep owners', () => {
    const script = readFileSync(box.script('db-import'), 'utf8');
    const copies = script.split('\n').filter((l) => /\bcp\s/.test(l) && l.includes('/var/lib/mysql'));
    assert.equal(copies.length, 1, `one copy into the datadir: ${copies.join(' | ')}`);
    assert.match(copies[0] ?? '', /\bcp -a --no-preserve=ownership /, 'modes and times kept, owners not');
  });
});
