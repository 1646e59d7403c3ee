/** Seed 003's lifetime claim (line 24): after docker rm and a recreate, only the mounted files remain. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LIFETIME_PHASES, LIFETIME_PLACES } from '../../../../lab/scenarios/lifetime/parse.ts';
import { SEED_HOSTS, claimOf, claimsOf, sample } from '../../claim-fixture.ts';

const CLAIM = "a file in the container's writable layer is gone";

/** One trial on xfs: every file there after writing and restart; after recreate as `kept` says. */
const trial = (kept: Partial<Record<string, number>>, places: readonly string[] = LIFETIME_PLACES) =>
  LIFETIME_PHASES.flatMap((phase) =>
    places.map((place) =>
      sample(SEED_HOSTS, 'xfs', 'lifetime', 'none', 1, 'survived', phase === 'recreate' ? (kept[place] ?? 1) : 1, {
        phase,
        place,
      }),
    ),
  );

describe('seed 003: what outlives the container', () => {
  it("confirmed as the seed: the layer's file gone, the volume's and the bind's kept", () => {
    const a = claimOf(claimsOf(trial({ layer: 0 })), CLAIM);
    assert.equal(a?.answer, 'confirmed', a?.evidence.join('\n'));
    assert.deepEqual(a?.evidence, [
      'layer: the file was still there in 0 of 1 trials',
      'volume: the file was still there in 1 of 1 trials',
      'bind: the file was still there in 1 of 1 trials',
    ]);
  });

  it('contradicted when the layer kept its file, or a volume lost it', () => {
    assert.equal(claimOf(claimsOf(trial({ layer: 1 })), CLAIM)?.answer, 'contradicted');
    const lost = claimOf(claimsOf(trial({ layer: 0, volume: 0 })), CLAIM);
    assert.equal(lost?.answer, 'contradicted');
    assert.ok(
      lost?.evidence.includes('volume: the file was still there in 0 of 1 trials — seed 003: kept'),
      lost?.evidence.join('\n'),
    );
  });

  it('not shown when a place is missing; left out without lifetime data', () => {
    assert.equal(claimOf(claimsOf(trial({ layer: 0 }, ['layer', 'volume'])), CLAIM)?.answer, 'not shown');
    assert.equal(claimOf(claimsOf([]), CLAIM), undefined);
  });

  it("lists seed 003's storage stack", () => {
    const stack = claimOf(claimsOf(trial({ layer: 0 })), CLAIM)?.parameters?.find((l) => l.label === 'storage stack');
    assert.equal(stack?.same, false);
    assert.equal(stack?.source.line, 7);
  });
});
