import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inversionDistribution, kendallSmallestP, kendallTau } from '../../../lab/analyze/rank-correlation.ts';

const close = (got: number, want: number, tol = 1e-9) => assert.ok(Math.abs(got - want) <= tol, `${got} ≠ ${want}`);

describe("Kendall's tau (hand-worked values)", () => {
  it('the inversions of a random order of 4: 1, 3, 5, 6, 5, 3, 1 of 24 (Mahonian numbers)', () => {
    const dist = [...inversionDistribution(4)].map((p) => Math.round(p * 24));
    assert.deepEqual(dist, [1, 3, 5, 6, 5, 3, 1]);
    close(
      inversionDistribution(9).reduce((a, b) => a + b, 0),
      1,
      1e-12,
    );
  });

  it('a perfect order: S = n(n−1)/2, tau 1, p = 2/n! (5 values: 2/120)', () => {
    const r = kendallTau([1, 2, 3, 4, 5], [10, 20, 30, 40, 50]);
    assert.deepEqual({ n: r.n, s: r.s, tau: r.tau }, { n: 5, s: 10, tau: 1 });
    close(r.p, 2 / 120);
    const down = kendallTau([1, 2, 3, 4, 5], [5, 4, 3, 2, 1]);
    assert.equal(down.tau, -1);
    close(down.p, 2 / 120);
  });

  it('one swap in 4: C = 5, D = 1, S = 4, tau 4/6; P(D ≤ 1) = (1 + 3)/24, two-sided 8/24', () => {
    const r = kendallTau([1, 2, 3, 4], [1, 3, 2, 4]);
    assert.equal(r.s, 4);
    close(r.tau, 4 / 6);
    close(r.p, 1 / 3);
  });

  it("matches R's cor.test Kendall example (Hollander & Wolfe: T = 26, tau 0.444, one-sided p 0.05972)", () => {
    const x = [44.4, 45.9, 41.9, 53.3, 44.7, 44.1, 50.7, 45.2, 60.1];
    const y = [2.6, 3.1, 2.5, 5.0, 3.6, 4.0, 5.2, 2.8, 3.8];
    const r = kendallTau(x, y);
    // T = 26 concordant of 36 pairs, D = 10, S = 16.
    assert.equal(r.s, 16);
    close(r.tau, 16 / 36);
    close(r.p, 2 * 0.05972, 1e-5);
  });

  it('ties: y = [1, 1, 2] over x = [1, 2, 3] has S = 2, tau-b 2/√6, and 2 of its 3 orders as extreme', () => {
    // The orders of the values: [1,1,2] S = 2; [1,2,1] S = 1 − 1 = 0; [2,1,1] S = −2.
    const r = kendallTau([1, 2, 3], [1, 1, 2]);
    assert.equal(r.s, 2);
    close(r.tau, 2 / Math.sqrt(6));
    close(r.p, 2 / 3);
  });

  it('ties in one list, at any n: exact, from the q-multinomial of its ties', () => {
    // y in five pairs of ties over an untied x, in order: S = 45 − 5 tied pairs = 40, the largest there is.
    // Of the 10!/2⁵ = 113 400 distinct arrangements of y, one reaches S = 40 and one −40: p = 2/113 400.
    const r = kendallTau([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
    assert.equal(r.s, 40);
    close(r.tau, 40 / Math.sqrt(45 * 40));
    close(r.p, 2 / 113_400, 1e-15);
    // The same with the lists swapped (S is symmetric in x and y).
    close(kendallTau([1, 1, 2, 2, 3, 3, 4, 4, 5, 5], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).p, 2 / 113_400, 1e-15);
    // Groups of 2 and 1: the single value stands before 0, 1 or 2 of the pair (1/3 each), as listed above.
    assert.deepEqual(
      [...inversionDistribution([2, 1])].map((p) => Math.round(p * 3)),
      [1, 1, 1],
    );
  });

  it('ties in both lists above 8 values: normal approximation with the tie-corrected variance', () => {
    // Both lists in the same five pairs of ties: S = 40;
    // Var(S) = (10·9·25 − 2·5·(2·1·9)) / 18 + 0 + (10 · 10) / (2·10·9) = 115 + 0.556 = 115.556;
    // z = (40 − 1)/√115.556 = 3.628, two-sided p = 0.000286.
    const pairs = [1, 1, 2, 2, 3, 3, 4, 4, 5, 5];
    const r = kendallTau(pairs, pairs);
    assert.equal(r.s, 40);
    close(r.tau, 1);
    close(r.p, 0.0002856, 1e-6);
  });

  it('ties in both lists up to 8 values: every order of the values counted', () => {
    // x = [1, 1, 2, 3], y = [1, 2, 3, 3]: S counts the pairs untied in both, (1,3) (1,4) (2,3) (2,4): S = 4.
    // Of y's 4!/2! = 12 distinct orders, [1,2,3,3] and [2,1,3,3] reach S = 4, [3,3,2,1] S = −5; the
    // others lie within ±3 (e.g. [3,3,1,2]: −1 −1 −1 −1 +1 = −3): p = 3/12.
    const r = kendallTau([1, 1, 2, 3], [1, 2, 3, 3]);
    assert.equal(r.s, 4);
    close(r.p, 3 / 12);
  });

  it('a constant list carries no order: tau 0, p 1; fewer than 2 pairs: nothing to test', () => {
    assert.deepEqual(kendallTau([1, 2, 3, 4, 5], [7, 7, 7, 7, 7]), { n: 5, s: 0, tau: 0, p: 1 });
    assert.deepEqual(kendallTau([1], [7]), { n: 1, s: 0, tau: 0, p: 1 });
    assert.throws(() => kendallTau([1, 2], [1]), /2 x values but 1 y values/);
  });

  it('no association: S = 0 gives p 1', () => {
    assert.equal(kendallTau([1, 2, 3, 4], [2, 4, 1, 3]).s, 0);
    close(kendallTau([1, 2, 3, 4], [2, 4, 1, 3]).p, 1);
  });

  it('the smallest p n values can reach: 4 cannot show anything at 5% (2/24), 5 can (2/120)', () => {
    close(kendallSmallestP(4), 2 / 24);
    close(kendallSmallestP(5), 2 / 120);
    assert.equal(kendallSmallestP(1), 1);
  });
});
