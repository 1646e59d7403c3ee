/**
 * Seed 003's permission claims: the write outcomes and the directory owners
 * the host sees, against the article's, judged on the seed's stack.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PERMISSION_CASES } from '../../../../lab/scenarios/permissions/cases.ts';
import { ownerAsSeed } from '../../../../lab/scenarios/permissions/report.ts';
import { type Host, SEED_HOSTS, claimOf, claimsOf, sample } from '../../claim-fixture.ts';

const OWNERS = "the data directory's owner as the host sees it";

/** One trial of every case on `host`, owners as the seed saw them except `changed`. */
const trial = (host: string, changed: Record<string, string> = {}, hosts: readonly Host[] = SEED_HOSTS) =>
  PERMISSION_CASES.map((c) =>
    sample(hosts, host, 'permissions', 'none', 1, 'wrote', c.seed.wrote ? 1 : 0, {
      case: c.name,
      user: '65534:65534',
      inside: c.seed.owner,
      outside: changed[c.name] ?? (c.seed.owner.includes(' ') ? c.seed.owner : `${c.seed.owner} 755`),
      error: '',
    }),
  );

describe("seed 003: the directories' owners", () => {
  it('owner and mode where the seed gave both; the owner alone where it gave only that', () => {
    assert.equal(ownerAsSeed('0:0 755', '0:0 755'), true);
    assert.equal(ownerAsSeed('0:0 700', '0:0 755'), false);
    assert.equal(ownerAsSeed('65534:65534 755', '65534:65534'), true);
    assert.equal(ownerAsSeed('0:0 755', '65534:65534'), false);
  });

  it('confirmed when every case has the seed owner, contradicted naming the case that does not', () => {
    const same = claimOf(claimsOf(trial('xfs')), OWNERS);
    assert.equal(same?.answer, 'confirmed', same?.evidence.join('\n'));
    assert.match(same?.evidence[0] ?? '', /^7 of 7 cases/);
    const fresh = claimOf(claimsOf(trial('xfs', { 'fresh-volume': '0:0 755' })), OWNERS);
    assert.equal(fresh?.answer, 'contradicted');
    assert.ok(
      fresh?.evidence.includes('fresh-volume: 0:0 755 in 1 of 1 trials; seed 003: 65534:65534'),
      fresh?.evidence.join('\n'),
    );
  });

  it('left out when the run recorded no owners (nothing to judge it on)', () => {
    const bare = trial('xfs').map((s) => ({ ...s, outside: '' }));
    assert.equal(claimOf(claimsOf(bare), OWNERS), undefined);
  });

  it("on the seed's stack alone when the lab has it", () => {
    const hosts = [...SEED_HOSTS, { name: 'ctrd', profile: 'containerd-ext4' }];
    const answers = claimsOf(
      [...trial('xfs', { 'missing-host-path': '1:1 700' }, hosts), ...trial('ctrd', {}, hosts)],
      hosts,
    );
    assert.equal(claimOf(answers, OWNERS)?.answer, 'confirmed', 'the xfs host is not judged');
  });
});
