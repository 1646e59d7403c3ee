/**
 * Seed 003's permission claims: the write outcomes, the owners the host sees
 * (the directory's and the written file's), and the host user's access to a
 * volume's `_data`, against the article's, judged on the seed's stack. Runs
 * recorded before the file owner and the host user were measured say so.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Sample } from '../../../../lab/record/samples.ts';
import { renderMarkdown } from '../../../../lab/report/markdown.ts';
import { PERMISSION_CASES } from '../../../../lab/scenarios/permissions/cases.ts';
import { ownerAsSeed, permissionsReport } from '../../../../lab/scenarios/permissions/report.ts';
import { type Host, SEED_HOSTS, claimOf, claimsOf, sample } from '../../claim-fixture.ts';

const OWNERS = "the data directory's owner as the host sees it";
const HOST_READ = "the host user (uid 1000) cannot list a volume's _data";

interface Changes {
  /** Directory owners ("uid:gid mode") unlike the seed's, by case. */
  outside?: Record<string, string>;
  /** Written files' owners unlike the seed's, by case. */
  file?: Record<string, string>;
  /** Volume cases where uid 1000 could list _data, and where it could read the file. */
  listed?: readonly string[];
  read?: readonly string[];
  /** A trial recorded before the file owner and the host user's access were measured. */
  old?: boolean;
}

/** One trial of every case on `host`, everything as the seed saw it (the host user denied) except `changes`. */
function trial(host: string, changes: Changes = {}, hosts: readonly Host[] = SEED_HOSTS): Sample[] {
  return PERMISSION_CASES.flatMap((c) => {
    const labels = {
      case: c.name,
      user: '65534:65534',
      inside: c.seed.owner,
      outside: changes.outside?.[c.name] ?? (c.seed.owner.includes(' ') ? c.seed.owner : `${c.seed.owner} 755`),
      ...(changes.old
        ? {}
        : { file_owner: c.seed.wrote ? (changes.file?.[c.name] ?? c.seed.owner.split(' ')[0]) : '' }),
      error: '',
    };
    const one = (metric: string, value: number) => sample(hosts, host, 'permissions', 'none', 1, metric, value, labels);
    const out = [one('wrote', c.seed.wrote ? 1 : 0)];
    if (c.source === 'volume' && !changes.old) {
      out.push(one('host_list', changes.listed?.includes(c.name) ? 1 : 0));
      if (c.seed.wrote) out.push(one('host_read', changes.read?.includes(c.name) ? 1 : 0));
    }
    return out;
  });
}

describe('seed 003: the owners of the directories and of the files written there', () => {
  it('owner and mode where the seed gave both; the owner alone where it gave only that', () => {
    assert.equal(ownerAsSeed('0:0 755', '0:0 755'), true);
    assert.equal(ownerAsSeed('0:0 700', '0:0 755'), false);
    assert.equal(ownerAsSeed('65534:65534 755', '65534:65534'), true);
    assert.equal(ownerAsSeed('0:0 755', '65534:65534'), false);
  });

  it('confirmed when every directory and every written file has the seed owner', () => {
    const same = claimOf(claimsOf(trial('xfs')), OWNERS);
    assert.equal(same?.answer, 'confirmed', same?.evidence.join('\n'));
    assert.match(same?.evidence[0] ?? '', /^7 of 7 cases with the directory's owner/);
    assert.ok(
      same?.evidence.includes(
        "4 of 4 cases the seed's container wrote in with the written file's owner as in seed 003 wherever it was written",
      ),
      same?.evidence.join('\n'),
    );
    assert.ok(
      same?.evidence.includes('seed 003 line 17: “A fresh named volume worked, with owner 65534:65534”'),
      `the seed's words: ${same?.evidence.join('\n')}`,
    );
  });

  it('contradicted naming the case whose directory, or whose written file, has another owner', () => {
    const fresh = claimOf(claimsOf(trial('xfs', { outside: { 'fresh-volume': '0:0 755' } })), OWNERS);
    assert.equal(fresh?.answer, 'contradicted');
    assert.ok(
      fresh?.evidence.includes('fresh-volume: 0:0 755 in 1 of 1 trials; seed 003: 65534:65534'),
      fresh?.evidence.join('\n'),
    );
    const file = claimOf(claimsOf(trial('xfs', { file: { 'user-fix': '0:0' } })), OWNERS);
    assert.equal(file?.answer, 'contradicted', 'a written file owned by root where the seed has 1000:1000');
    assert.ok(
      file?.evidence.includes('user-fix: written.txt 0:0 in 1 of 1 trials; seed 003: 1000:1000'),
      file?.evidence.join('\n'),
    );
  });

  it('a run from before the file owner was recorded: not shown, saying so; a differing directory still decides', () => {
    const old = claimOf(claimsOf(trial('xfs', { old: true })), OWNERS);
    assert.equal(old?.answer, 'not shown', old?.evidence.join('\n'));
    assert.ok(
      old?.evidence.some((e) => e.startsWith("the written file's owner: not measured in this run")),
      old?.evidence.join('\n'),
    );
    const differs = claimOf(claimsOf(trial('xfs', { old: true, outside: { 'chown-fix': '0:0 755' } })), OWNERS);
    assert.equal(differs?.answer, 'contradicted');
  });

  it('left out when the run recorded no owners (nothing to judge it on)', () => {
    const bare = trial('xfs').map((s) => ({ ...s, outside: '' }));
    assert.equal(claimOf(claimsOf(bare), OWNERS), undefined);
  });

  it("on the seed's stack alone when the lab has it", () => {
    const hosts = [...SEED_HOSTS, { name: 'ctrd', profile: 'containerd-ext4' }];
    const answers = claimsOf(
      [
        ...trial('xfs', { outside: { 'missing-host-path': '1:1 700' }, file: { 'chown-fix': '1:1' } }, hosts),
        ...trial('ctrd', {}, hosts),
      ],
      hosts,
    );
    assert.equal(claimOf(answers, OWNERS)?.answer, 'confirmed', 'the xfs host is not judged');
  });
});

describe("seed 003: the host user cannot read a volume's files (line 20)", () => {
  it('confirmed when uid 1000 could neither list _data nor read the file in any volume trial', () => {
    const a = claimOf(claimsOf(trial('xfs')), HOST_READ);
    assert.equal(a?.answer, 'confirmed', a?.evidence.join('\n'));
    assert.deepEqual(a?.evidence, [
      "trials in which uid 1000 listed the volume's _data: fresh-volume 0 of 1, reset-empty-volume 0 of 1, volume-with-root-file 0 of 1",
      'trials in which uid 1000 read the file the container wrote there: fresh-volume 0 of 1, reset-empty-volume 0 of 1',
      'seed 003 line 20: “The host user cannot read a volume’s files directly: ls /var/lib/docker/volumes/<name>/_data returned Permission denied”',
      'seed 003 line 16: “Owned by the host user (1000:1000)”',
    ]);
  });

  it('contradicted by a trial where uid 1000 listed _data, or read the file', () => {
    const listed = claimOf(claimsOf(trial('xfs', { listed: ['volume-with-root-file'] })), HOST_READ);
    assert.equal(listed?.answer, 'contradicted');
    assert.match(listed?.evidence[0] ?? '', /volume-with-root-file 1 of 1$/);
    const read = claimOf(claimsOf(trial('xfs', { read: ['fresh-volume'] })), HOST_READ);
    assert.equal(read?.answer, 'contradicted');
    assert.match(read?.evidence[1] ?? '', /: fresh-volume 1 of 1, reset-empty-volume 0 of 1$/);
  });

  it('not shown, "not measured in this run", for trials before the check; left out without volume cases', () => {
    const old = claimOf(claimsOf(trial('xfs', { old: true })), HOST_READ);
    assert.equal(old?.answer, 'not shown');
    assert.match(old?.evidence[0] ?? '', /^not measured in this run: its 3 volume trials predate/);
    const binds = trial('xfs').filter((s) => PERMISSION_CASES.some((c) => c.name === s.case && c.source === 'bind'));
    assert.equal(claimOf(claimsOf(binds), HOST_READ), undefined);
  });

  it("on the seed's stack alone when the lab has it", () => {
    const hosts = [...SEED_HOSTS, { name: 'ctrd', profile: 'containerd-ext4' }];
    const answers = claimsOf(
      [...trial('xfs', { listed: ['fresh-volume'] }, hosts), ...trial('ctrd', {}, hosts)],
      hosts,
    );
    assert.equal(claimOf(answers, HOST_READ)?.answer, 'confirmed', 'the xfs host is not judged');
  });
});

describe('the permissions table', () => {
  const LAB = {
    name: 't',
    hosts: [{ name: 'xfs', profile: 'overlay2-xfs' }],
    mounts: [],
    scenarioMounts: {},
    equivalent: [],
    scenarios: {},
    scenarioRepetitions: {},
  };
  const md = (samples: Sample[]) => {
    const own = permissionsReport.section({ lab: LAB, samples, comparisons: [] });
    return renderMarkdown({ title: 't', sections: own.sections });
  };

  it("shows the written file's owner and the host user's access; an old run's as not measured", () => {
    const now = md(trial('xfs', { listed: ['fresh-volume'] }));
    assert.match(now, /^\| fresh-volume \|.*\| 65534:65534 \| list: yes; read: no \|/m);
    assert.match(now, /^\| volume-with-root-file \|.*\| – \| list: no \|/m);
    assert.match(now, /^\| user-fix \|.*\| 1000:1000 \| – \|/m);
    const old = md(trial('xfs', { old: true }));
    assert.match(old, /^\| fresh-volume \|.*\| not measured \| not measured \|/m);
    assert.match(old, /^\| user-fix \|.*\| not measured \| – \|/m);
  });
});
