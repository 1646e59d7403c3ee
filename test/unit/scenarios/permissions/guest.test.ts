/**
 * lab/scenarios/permissions/guest.sh in bash on this machine, with fakes
 * first on PATH: `docker` plays the uid-65534 container (it writes
 * written.txt into the bind directory or the volume's `_data` unless the case
 * is denied), `chown` does nothing (no root needed), and `setpriv` logs how
 * it was asked to drop to the host user and lets that user list or read only
 * the paths FAKE_HOST_ALLOW names. What the script writes must parse.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PERMISSION_CASES } from '../../../../lab/scenarios/permissions/cases.ts';
import { parsePermissions } from '../../../../lab/scenarios/permissions/parse.ts';
import { guestSandbox } from '../../guest-sandbox.ts';

const box = guestSandbox('permissions-guest', {
  scenarios: ['permissions'],
  libTail: (root) => `LL_BIND_ROOT=${JSON.stringify(join(root, 'binds'))}`,
});
const { root } = box;
const script = box.script('permissions');
const fake = (name: string, body: string) => box.fake(name, `set -euo pipefail\n${body}`);
fake(
  'docker',
  `case "$1:\${2:-}" in
  volume:create) mkdir -p "$FAKE_VOLUMES/\${!#}/_data"; echo "\${!#}" ;;
  volume:inspect) echo "$FAKE_VOLUMES/\${!#}/_data" ;;
  volume:*) ;; # ls finds none left over; rm has none to remove
  run:*)
    src='' prev=''
    for a in "$@"; do if [ "$prev" = -v ]; then src="\${a%:/data}"; fi; prev="$a"; done
    case "$src" in /*) dir="$src"; mkdir -p "$dir" ;; *) dir="$FAKE_VOLUMES/$src/_data" ;; esac
    name="\${src##*/}"; name="\${name#ll-$LL_TRIAL-}"
    stat -c '%u:%g %a' "$dir"
    case " $FAKE_DENIED " in *" $name "*) echo '/bin/sh: 1: cannot create /data/written.txt: Permission denied' >&2; exit 2 ;; esac
    echo ok > "$dir/written.txt" ;;
  *) echo "fake docker: unexpected $*" >&2; exit 9 ;;
esac
`,
);
fake('chown', 'exit 0\n');
fake(
  'setpriv',
  `echo "$*" >> "$FAKE_SETPRIV_LOG"
[ "$FAKE_SETPRIV_BROKEN" = 1 ] && { echo 'setpriv: setresuid failed: Operation not permitted' >&2; exit 127; }
while [ "$1" != -- ]; do shift; done
shift
[ "$1" = true ] && exit 0
for allowed in $FAKE_HOST_ALLOW; do case "\${!#}" in *"$allowed"*) exec "$@" ;; esac; done
echo "\${!#}: Permission denied" >&2
exit 2
`,
);

let trials = 0;
/** One run of the script over all seven cases; the cases the seed saw denied are denied. */
function trial(options: { allow?: string; broken?: boolean } = {}) {
  const id = `t${++trials}`;
  const out = join(root, 'out', id);
  mkdirSync(out, { recursive: true });
  const log = join(out, 'setpriv.log');
  writeFileSync(log, '');
  const r = spawnSync('bash', [script], {
    encoding: 'utf8',
    env: {
      PATH: box.path,
      LL_OUT: out,
      LL_LAB: 'unit',
      LL_ENGINE: 'docker',
      LL_TRIAL: id,
      LL_IMAGE_SHELL: 'layerlab/shell',
      LL_P_CASES: PERMISSION_CASES.map((c) => c.name).join(' '),
      FAKE_VOLUMES: join(root, 'volumes', id),
      FAKE_DENIED: PERMISSION_CASES.filter((c) => !c.seed.wrote)
        .map((c) => c.name)
        .join(' '),
      FAKE_HOST_ALLOW: options.allow ?? '',
      FAKE_SETPRIV_BROKEN: options.broken ? '1' : '0',
      FAKE_SETPRIV_LOG: log,
    },
  });
  const tsv = join(out, 'permissions.tsv');
  return { ...r, tsv, setpriv: readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) };
}

const valuesOf = (raw: string, metric: string) =>
  parsePermissions(raw)
    .values.filter((v) => v.metric === metric)
    .map((v) => `${v.labels.case}=${v.value}`);

describe('permissions guest.sh: the host user and the written file', () => {
  it("records the written file's owner and, for volumes, whether uid 1000 could list _data and read it", () => {
    const r = trial();
    assert.equal(r.status, 0, r.stderr);
    const raw = readFileSync(r.tsv, 'utf8');
    const parsed = parsePermissions(raw);
    assert.deepEqual(parsed.failures, [], raw);
    assert.deepEqual(valuesOf(raw, 'host_list'), ['fresh-volume=0', 'reset-empty-volume=0', 'volume-with-root-file=0']);
    assert.deepEqual(valuesOf(raw, 'host_read'), ['fresh-volume=0', 'reset-empty-volume=0']);
    // The fake container writes as this process: the owner the host sees is ours.
    const me = `${process.getuid?.()}:${process.getgid?.()}`;
    const owners = parsed.values
      .filter((v) => v.metric === 'wrote')
      .map((v) => `${v.labels.case}=${v.labels.file_owner}`);
    assert.deepEqual(owners, [
      'missing-host-path=',
      'host-user-dir=',
      `chown-fix=${me}`,
      `user-fix=${me}`,
      `fresh-volume=${me}`,
      `reset-empty-volume=${me}`,
      'volume-with-root-file=',
    ]);
    // uid and gid 1000 and no other group, once to check setpriv, then ls and cat of volumes only.
    const asked = r.setpriv.map((line) => line.replace(join(root, 'volumes', 't1'), 'V'));
    assert.deepEqual(asked, [
      '--reuid=1000 --regid=1000 --clear-groups -- true',
      '--reuid=1000 --regid=1000 --clear-groups -- ls -- V/ll-t1-fresh-volume/_data',
      '--reuid=1000 --regid=1000 --clear-groups -- cat -- V/ll-t1-fresh-volume/_data/written.txt',
      '--reuid=1000 --regid=1000 --clear-groups -- ls -- V/ll-t1-reset-empty-volume/_data',
      '--reuid=1000 --regid=1000 --clear-groups -- cat -- V/ll-t1-reset-empty-volume/_data/written.txt',
      '--reuid=1000 --regid=1000 --clear-groups -- ls -- V/ll-t1-volume-with-root-file/_data',
    ]);
  });

  it('a volume the host user can read is recorded as 1', () => {
    const r = trial({ allow: 'fresh-volume' });
    assert.equal(r.status, 0, r.stderr);
    const raw = readFileSync(r.tsv, 'utf8');
    assert.deepEqual(valuesOf(raw, 'host_list'), ['fresh-volume=1', 'reset-empty-volume=0', 'volume-with-root-file=0']);
    assert.deepEqual(valuesOf(raw, 'host_read'), ['fresh-volume=1', 'reset-empty-volume=0']);
  });

  it('stops before any case when setpriv cannot drop to uid 1000 (every case would read as denied)', () => {
    const r = trial({ broken: true });
    assert.notEqual(r.status, 0, 'the trial fails');
    assert.match(r.stderr, /setpriv could not run true as uid 1000:1000 on this host/);
    assert.throws(() => readFileSync(r.tsv, 'utf8'), /ENOENT/, 'no permissions.tsv with made-up denials');
  });
});
