/**
 * lab/scenarios/db-import/guest.sh in bash on this machine, with a fake
 * `docker` first on PATH that plays a MariaDB container: how the script
 * starts the server (untimed), retries one failed start on a fresh copy and
 * gives up after a second with the server's own errors in its message.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseDbImport } from '../../../../lab/scenarios/db-import/parse.ts';
import { guestSandbox } from '../../guest-sandbox.ts';

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
 * The fake engine: `run -d` starts "container" number N (counted from 1, in a file);
 * the ones listed in FAKE_FAIL_STARTS exit at once and log InnoDB's refusal,
 * the others answer queries. Every other command does what the script needs.
 */
box.fake(
  'docker',
  `set -euo pipefail
state="$FAKE_STATE"
n="$(cat "$state/starts" 2>/dev/null || echo 0)"
failed() { case " $FAKE_FAIL_STARTS " in *" $n "*) return 0 ;; esac; return 1; }
case "$1" in
  run) echo $((n + 1)) > "$state/starts"; echo cid ;;
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
`,
);

// Volumes and removals go through the Engine API (guest/lib.sh): its stand-in, state in $FAKE.
box.fakeEngineApi();

function trial(id: string, failStarts: string) {
  const out = join(root, 'out', id);
  const fake = join(root, 'fake', id);
  mkdirSync(out, { recursive: true });
  mkdirSync(fake, { recursive: true });
  const r = spawnSync('bash', [box.script('db-import')], {
    encoding: 'utf8',
    env: {
      PATH: box.path,
      LL_OUT: out,
      LL_LAB: 'unit',
      LL_ENGINE: 'docker',
      LL_MOUNT: 'volume',
      LL_TRIAL: id,
      LL_IMAGE_MARIADB: 'layerlab/mariadb:11.8',
      LL_P_SQL_BYTES: '1000',
      FAKE_STATE: fake,
      FAKE: fake,
      FAKE_FAIL_STARTS: failStarts,
    },
  });
  const starts = Number(readFileSync(join(fake, 'starts'), 'utf8'));
  return { ...r, out, starts };
}

describe('db-import guest.sh: the server start', () => {
  it('a server that starts: one start, a result the parser takes', () => {
    const r = trial('ok', '');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.starts, 1, 'one container started');
    const parsed = parseDbImport(readFileSync(join(r.out, 'db-import.tsv'), 'utf8'));
    assert.deepEqual(parsed.failures, [], 'the row counts match the dump');
    // The volume and the removals through the Engine API's stand-in (a curl, not a docker CLI start).
    const calls = readFileSync(join(root, 'fake', 'ok', 'calls'), 'utf8');
    assert.match(calls, /volumes\/create/, 'the volume made through the Engine API');
    assert.match(calls, /-X DELETE http:\/\/docker\/containers\/ll-ok\?force=true&v=true/, 'the server removed');
    assert.ok(!existsSync(join(root, 'fake', 'ok', 'volume-ll-ok')), 'the volume removed');
  });

  it('one failed start: a second on a fresh copy, the first log kept, a warning on stderr', () => {
    const r = trial('retry', '1');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.starts, 2, 'the server was started twice');
    assert.match(r.stderr, /warning: MariaDB did not start on mount volume; trying once more/);
    assert.match(readFileSync(join(r.out, 'mariadb-start-1.log'), 'utf8'), /InnoDB: start 1 failed/);
    assert.deepEqual(parseDbImport(readFileSync(join(r.out, 'db-import.tsv'), 'utf8')).failures, []);
  });

  it("two failed starts: the trial fails, naming the server's first errors", () => {
    const r = trial('fails', '1 2');
    assert.equal(r.status, 1, 'the trial failed');
    assert.equal(r.starts, 2, 'no third start');
    const last = r.stderr.trim().split('\n').at(-1) ?? '';
    assert.match(last, /did not become ready on mount volume, twice \(first errors: .*InnoDB: start 2 failed/);
    assert.match(last, /Unknown\/unsupported storage engine: InnoDB/);
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
