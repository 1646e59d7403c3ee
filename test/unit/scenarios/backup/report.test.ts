/** Seed 003's backup claims: the helper container slower, and the host's two methods alike (4.36 vs 4.30 s). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SEED_HOSTS, cell, claimOf, claimsOf, reps } from '../../claim-fixture.ts';

const ALIKE = 'tar czf from the host takes the same time';

/** Seconds of each method on xfs. */
const methods = (bind: number, volume: number, n = 5) => [
  ...cell(SEED_HOSTS, 'xfs', 'backup', 'none', 'seconds', reps(bind, n), { method: 'host-bind' }),
  ...cell(SEED_HOSTS, 'xfs', 'backup', 'none', 'seconds', reps(volume, n), { method: 'host-volume' }),
  ...cell(SEED_HOSTS, 'xfs', 'backup', 'none', 'seconds', reps(6, n), { method: 'helper-container' }),
];

describe('seed 003: host bind ≈ host volume', () => {
  it('confirmed within ±10%, contradicted by a gap beyond it, not shown when the intervals are too wide', () => {
    const same = claimOf(claimsOf(methods(4.36, 4.3)), ALIKE);
    assert.equal(same?.answer, 'confirmed', same?.evidence.join('\n'));
    assert.match(same?.claim ?? '', /4\.36 s and 4\.30 s median/);
    const apart = claimOf(claimsOf(methods(4.3, 6)), ALIKE);
    assert.equal(apart?.answer, 'contradicted', apart?.evidence.join('\n'));
    assert.ok(
      apart?.evidence.some((e) => /seconds: host-bind vs host-volume on host xfs/.test(e)),
      apart?.evidence.join('\n'),
    );
    assert.equal(claimOf(claimsOf(methods(4.3, 4.3, 2)), ALIKE)?.answer, 'not shown');
  });
});
