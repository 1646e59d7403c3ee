/**
 * permissions.tsv as the guest writes it now (the written file's owner and
 * the host user's access per case) and as trials before those columns wrote
 * it (test/fixtures/permissions/seven-cases.tsv, a real one): both parse; a
 * value the guest cannot have seen is refused, not kept. The rows below are
 * checked against a real trial of today's form
 * (test/fixtures/permissions/written-file-and-host-user.tsv).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parsePermissions } from '../../../../lab/scenarios/permissions/parse.ts';

const fixture = (name: string) =>
  readFileSync(join(import.meta.dirname, '..', '..', '..', 'fixtures', 'permissions', name), 'utf8');
const OLD = fixture('seven-cases.tsv');
const REAL = fixture('written-file-and-host-user.tsv');

const HEADER = 'case\tuser\texit_status\twrote\tinside\toutside\tfile_owner\thost_list\thost_read\terror';
const DENIED = '/bin/sh: 1: cannot create /data/written.txt: Permission denied ';

/** The rows of a trial in the new form, as the seed's outcomes would give them, the host user denied everywhere. */
const ROWS: Record<string, string> = {
  'missing-host-path': `missing-host-path\t65534:65534\t2\t0\t0:0 755\t0:0 755\t-\t-\t-\t${DENIED}`,
  'host-user-dir': `host-user-dir\t65534:65534\t2\t0\t1000:1000 775\t1000:1000 775\t-\t-\t-\t${DENIED}`,
  'chown-fix': 'chown-fix\t65534:65534\t0\t1\t65534:65534 775\t65534:65534 775\t65534:65534\t-\t-\t',
  'user-fix': 'user-fix\t1000:1000\t0\t1\t1000:1000 775\t1000:1000 775\t1000:1000\t-\t-\t',
  'fresh-volume': 'fresh-volume\t65534:65534\t0\t1\t65534:65534 755\t65534:65534 755\t65534:65534\t0\t0\t',
  'reset-empty-volume': 'reset-empty-volume\t65534:65534\t0\t1\t65534:65534 755\t65534:65534 755\t65534:65534\t0\t0\t',
  'volume-with-root-file': `volume-with-root-file\t65534:65534\t2\t0\t0:0 755\t0:0 755\t-\t0\t-\t${DENIED}`,
};

const tsv = (rows: Record<string, string> = ROWS) => `${HEADER}\n${Object.values(rows).join('\n')}\n`;

/** ROWS with one case's row changed: `column` (a header name) set to `value`. */
function withCell(name: string, column: string, value: string): string {
  const cells = (ROWS[name] ?? '').split('\t');
  cells[HEADER.split('\t').indexOf(column)] = value;
  return tsv({ ...ROWS, [name]: cells.join('\t') });
}

describe('permissions.tsv', () => {
  it("a trial from before the host user's columns still parses: no owner of the file, no host-user values", () => {
    const { values, failures } = parsePermissions(OLD);
    assert.deepEqual(failures, []);
    assert.deepEqual([...new Set(values.map((v) => v.metric))], ['wrote', 'exit_status']);
    assert.ok(
      values.every((v) => !('file_owner' in v.labels)),
      'an old trial has no file_owner label (the claims read it as not measured)',
    );
  });

  it('the rows this test builds on are what a real guest wrote', () => {
    assert.equal(tsv(), REAL, 'ROWS differ from a real trial of the guest script: update them from the fixture');
    assert.deepEqual(parsePermissions(REAL).failures, []);
  });

  it("the written file's owner where the container wrote; the host user's 1/0 for volumes only", () => {
    const { values, failures } = parsePermissions(tsv());
    assert.deepEqual(failures, []);
    const of = (metric: string) => values.filter((v) => v.metric === metric).map((v) => `${v.labels.case}=${v.value}`);
    assert.deepEqual(of('host_list'), ['fresh-volume=0', 'reset-empty-volume=0', 'volume-with-root-file=0']);
    assert.deepEqual(of('host_read'), ['fresh-volume=0', 'reset-empty-volume=0'], 'read only where a file was written');
    const owners = values.filter((v) => v.metric === 'wrote').map((v) => `${v.labels.case}=${v.labels.file_owner}`);
    assert.deepEqual(owners, [
      'missing-host-path=',
      'host-user-dir=',
      'chown-fix=65534:65534',
      'user-fix=1000:1000',
      'fresh-volume=65534:65534',
      'reset-empty-volume=65534:65534',
      'volume-with-root-file=',
    ]);
    const listed = parsePermissions(withCell('fresh-volume', 'host_list', '1'));
    assert.equal(listed.values.find((v) => v.metric === 'host_list')?.value, 1, 'a 1 is kept as 1');
  });

  it('refuses values the guest cannot have seen, naming the case and the column', () => {
    const refused: [string, string, string, RegExp][] = [
      ['chown-fix', 'file_owner', 'root:root', /case chown-fix .* file_owner="root:root", expected uid:gid/],
      ['chown-fix', 'file_owner', '65534:65534 775', /file_owner="65534:65534 775"/],
      ['chown-fix', 'file_owner', '-', /file_owner="-", expected uid:gid/],
      ['missing-host-path', 'file_owner', '0:0', /case missing-host-path .* file_owner="0:0", expected -/],
      ['host-user-dir', 'host_list', '0', /case host-user-dir \(bind, wrote=0\) has host_list="0" host_read="-"/],
      ['fresh-volume', 'host_list', '-', /case fresh-volume .* host_list="-", expected 0 or 1/],
      ['fresh-volume', 'host_read', 'yes', /host_read="yes", expected 0 or 1/],
      ['volume-with-root-file', 'host_read', '0', /host_read="0", expected - \(no file\)/],
    ];
    for (const [name, column, value, message] of refused) {
      const { values, failures } = parsePermissions(withCell(name, column, value));
      assert.equal(failures.length, 1, `${name} ${column}=${value}: ${failures.join('; ')}`);
      assert.match(failures[0] ?? '', message);
      assert.ok(
        values.every((v) => v.labels.case !== name),
        `${name} ${column}=${value}: a refused row lands no values`,
      );
    }
  });

  it('refuses a header with some of the three new columns but not all', () => {
    const column = HEADER.split('\t').indexOf('host_read');
    const partial = tsv()
      .split('\n')
      .map((line) =>
        line
          .split('\t')
          .filter((_, i) => i !== column)
          .join('\t'),
      )
      .join('\n');
    const { values, failures } = parsePermissions(partial);
    assert.deepEqual(failures, ['permissions.tsv: header has file_owner, host_list but not host_read']);
    assert.deepEqual(values, []);
  });
});
