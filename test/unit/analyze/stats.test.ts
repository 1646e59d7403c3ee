import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mannWhitneyU, rankSumP, shiftEstimate, smallestP, uDistribution } from '../../../lab/analyze/rank-test.ts';
import { describe as describeCell, medianInterval, quantile } from '../../../lab/analyze/stats.ts';
import {
  MIN_RUNS,
  benjaminiHochberg,
  compare,
  decideFamily,
  testPair,
  withinMargin,
} from '../../../lab/analyze/verdict.ts';
import { mulberry32 } from '../../../lab/util/rng.ts';

const close = (got: number, want: number, tol = 1e-9) => assert.ok(Math.abs(got - want) <= tol, `${got} ≠ ${want}`);

describe('descriptive statistics', () => {
  it('quantiles interpolate like numpy (type 7)', () => {
    assert.equal(quantile([1, 2, 3, 4], 0.5), 2.5);
    assert.equal(quantile([1, 2, 3, 4], 0.25), 1.75);
    assert.equal(quantile([7], 0.9), 7);
    assert.ok(Number.isNaN(quantile([], 0.5)), 'Number.isNaN(quantile([], 0.5))');
  });

  it('describes a cell: n, median, min, max, quartiles; ties and a single sample', () => {
    assert.deepEqual(describeCell([3, 1, 2]), { n: 3, median: 2, min: 1, max: 3, q1: 1.5, q3: 2.5 });
    assert.deepEqual(describeCell([5, 5, 5, 5]), { n: 4, median: 5, min: 5, max: 5, q1: 5, q3: 5 });
    assert.deepEqual(describeCell([42]), { n: 1, median: 42, min: 42, max: 42, q1: 42, q3: 42 });
  });

  it("a median's interval: order statistics with their exact coverage, min–max below n = 6", () => {
    const ranks = (n: number) => Array.from({ length: n }, (_, i) => n - i);
    assert.deepEqual(medianInterval(ranks(5)), { lo: 1, hi: 5, level: 0.9375 });
    assert.deepEqual(medianInterval(ranks(6)), { lo: 1, hi: 6, level: 0.96875 });
    // n = 20: the textbook 6th and 15th values (95.9%).
    const twenty = medianInterval(ranks(20));
    assert.deepEqual([twenty.lo, twenty.hi], [6, 15]);
    close(twenty.level, 0.9586105346679688);
    assert.deepEqual(medianInterval([7]), { lo: 7, hi: 7, level: 0 });
  });
});

describe('exact rank-sum test (hand-worked p-values)', () => {
  it('U counts the pairs A wins, ties one half', () => {
    assert.equal(mannWhitneyU([1, 2, 4], [3, 5, 6]), 1);
    assert.equal(mannWhitneyU([2, 2], [2, 1]), 3);
  });

  it('the null distribution of U is the count of orderings: 3 vs 3 has 20, symmetric', () => {
    const { counts, total } = uDistribution(3, 3);
    assert.equal(total, 20);
    assert.deepEqual([...counts], [1, 1, 2, 3, 3, 3, 3, 2, 1, 1]);
  });

  it('one side winning every pair: p = 2 / C(m+n, m)', () => {
    close(rankSumP([1, 2, 3], [4, 5, 6]), 2 / 20); // 0.10: 3 vs 3 cannot reach 5%
    close(rankSumP([1, 2, 3, 4], [5, 6, 7, 8]), 2 / 70); // 0.029
    close(smallestP(3, 3), 0.1);
    close(smallestP(4, 4), 2 / 70);
    assert.equal(MIN_RUNS, 4, 'the fewest equal runs per side that can show a difference at 5%');
  });

  it('U = 1 at 3 vs 3: P(U <= 1) = 2/20, two-sided 0.2', () => {
    close(rankSumP([1, 2, 4], [3, 5, 6]), 0.2);
  });

  it("matches R's wilcox.test documentation example (W = 35, one-sided p = 0.1272)", () => {
    const x = [0.8, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46];
    const y = [1.15, 0.88, 0.9, 0.74, 1.21];
    assert.equal(mannWhitneyU(x, y), 35);
    close(rankSumP(x, y), 2 * 0.1272, 1e-4);
  });

  it('ties: exact permutation of mid-ranks ([1,1,2] vs [2,3,3]: 4 of 20 subsets as extreme)', () => {
    close(rankSumP([1, 1, 2], [2, 3, 3]), 4 / 20);
    close(rankSumP([5, 5, 5], [5, 5, 5]), 1);
  });

  it('large samples use the normal approximation, close to the exact value', () => {
    const a = Array.from({ length: 31 }, (_, i) => i + 0.5);
    const b = Array.from({ length: 31 }, (_, i) => i + 6.25);
    const p = rankSumP(a, b); // 62 values: above the exact limit
    const u = mannWhitneyU(a, b);
    const { counts, total } = uDistribution(31, 31);
    const exact = (2 * [...counts].slice(0, u + 1).reduce((s, c) => s + c, 0)) / total;
    close(p, exact, 0.002);
  });
});

describe('Hodges–Lehmann shift and its Moses interval', () => {
  it('4 vs 4 shifted by 10: estimate 10, 95% interval from the extreme differences, 90% one in', () => {
    const { shift, intervals } = shiftEstimate([11, 12, 13, 14], [1, 2, 3, 4], [0.95, 0.9]);
    assert.equal(shift, 10);
    assert.deepEqual(
      intervals.map((i) => [i.lo, i.hi]),
      [
        [7, 13],
        [8, 12],
      ],
    );
  });

  it('3 vs 3 cannot bound a 95% interval', () => {
    const { intervals } = shiftEstimate([11, 12, 13], [1, 2, 3]);
    assert.deepEqual([intervals[0]?.lo, intervals[0]?.hi], [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY]);
  });
});

describe('verdicts', () => {
  it('3 runs per side are never claimed, however far apart, and say what n can', () => {
    const c = compare([100, 101, 102], [50, 51, 52], 'higher');
    assert.equal(c.verdict, 'not-enough-runs');
    assert.match(
      c.text,
      /^3 vs 3 runs cannot show a difference at 95% \(smallest possible p 0\.10; 4 per side can on their own, 5 or more among a report's many comparisons\) — ratio 1\.98$/,
    );
  });

  it('a clear gap is named with its size, interval and p, direction-aware', () => {
    const fast = [200, 202, 198, 201, 199];
    const slow = [100, 101, 99, 100, 102];
    const bw = compare(fast, slow, 'higher');
    assert.equal(bw.verdict, 'a-better');
    assert.match(bw.text, /^A is 9\d% higher — better \(ratio 1\.9\d, CI 1\.9\d–2\.0\d, p 0\.008\)$/);
    const latency = compare(fast, slow, 'lower');
    assert.equal(latency.verdict, 'b-better', 'higher latency is worse');
    assert.match(latency.text, /higher — worse/);
  });

  it('with ties the direction comes from the test, not from a ratio of exactly 1', () => {
    // A >= B everywhere; the typical pairwise ratio is 1 because most pairs tie.
    const a = Array.from({ length: 20 }, () => 100);
    const b = [...Array.from({ length: 12 }, () => 100), ...Array.from({ length: 8 }, () => 50)];
    const higher = compare(a, b, 'higher');
    assert.notEqual(higher.verdict, 'b-better', higher.text);
    assert.notEqual(compare(a, b, 'lower').verdict, 'a-better', 'lower is better: A is not better');
  });

  it('p reads with three decimals below 0.1 (0.0499 and 0.0504 are not both "0.05")', () => {
    const c = compare([1, 2, 3, 4, 5, 6, 7, 8], [5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5], 'higher');
    assert.match(c.text, /p 0\.\d\d\d\)/);
  });

  it('overlapping noise is "no consistent difference"', () => {
    const c = compare([100, 120, 90, 110, 95], [105, 98, 115, 92, 108], 'higher');
    assert.equal(c.verdict, 'no-difference');
    assert.match(c.text, /^no consistent difference \(ratio \d\.\d\d, CI \d\.\d\d–\d\.\d\d, p \d\.\d\d\)$/);
  });

  it('identical samples are no difference; a zero value has no ratio', () => {
    assert.equal(compare([5, 5, 5, 5], [5, 5, 5, 5], 'higher').verdict, 'no-difference');
    assert.equal(compare([1, 2, 3, 4], [0, 1, 1, 1], 'higher').verdict, 'undefined');
  });

  it('reports the minimum detectable effect where n can claim, none where it cannot', () => {
    const c = compare([100, 110, 90, 105, 95, 100], [100, 110, 90, 105, 95, 100], 'higher');
    assert.ok(
      c.minDetectable !== undefined && c.minDetectable > 0.05 && c.minDetectable < 0.5,
      String(c.minDetectable),
    );
    assert.equal(compare([1, 2, 3], [1, 2, 3], 'higher').minDetectable, undefined);
  });
});

describe('many comparisons: Benjamini–Hochberg', () => {
  it("Benjamini & Hochberg (1995)'s 15 p-values: the 4 smallest are rejected at 5%", () => {
    const ps = [
      0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.324, 0.4262, 0.5719, 0.6528, 0.759, 1,
    ];
    const q = benjaminiHochberg(ps);
    assert.deepEqual(
      q.map((x) => x <= 0.05),
      ps.map((_, i) => i < 4),
    );
    close(q[3] as number, (0.0095 * 15) / 4);
    // R: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "BH") is 0.05 everywhere.
    for (const x of benjaminiHochberg([0.01, 0.02, 0.03, 0.04, 0.05])) close(x, 0.05);
  });

  it('a difference that holds alone is not claimed inside a large family of nulls, and says why', () => {
    const gap = testPair([110, 111, 112, 113, 114], [100, 101, 102, 103, 104]); // p = 0.008
    const nulls = Array.from({ length: 30 }, () => testPair([1, 3, 5, 7, 9], [2, 4, 6, 8, 10]));
    const decided = decideFamily([gap, ...nulls].map((result) => ({ result, better: 'higher' as const, nameA: 'A' })));
    assert.equal(decided[0]?.verdict, 'no-difference');
    assert.match(decided[0]?.text ?? '', /once the report's 31 comparisons are controlled .* p 0\.008, q 0\.2\d/);
    const alone = decideFamily([{ result: gap, better: 'higher', nameA: 'A' }]);
    assert.equal(alone[0]?.verdict, 'a-better');
  });
});

describe('equivalence (no gap larger than a margin)', () => {
  const jitter = [0.99, 1.0, 1.01, 0.995, 1.005, 0.998, 1.002, 0.997, 1.003, 1.0];
  it('a 2% difference with tight noise lies within ±10%; a 30% one does not; 3 runs cannot tell', () => {
    assert.equal(
      withinMargin(
        testPair(
          jitter.map((f) => 102 * f),
          jitter.map((f) => 100 * f),
        ),
      ),
      true,
    );
    assert.equal(
      withinMargin(
        testPair(
          jitter.map((f) => 130 * f),
          jitter.map((f) => 100 * f),
        ),
      ),
      false,
    );
    assert.equal(withinMargin(testPair([100, 101, 99], [100, 100, 101])), false);
  });
});

/**
 * The shipped verdict logic on simulated experiments (a small version of
 * `npm run bench:stats`): false positives at or below 5% and power against a
 * 20% shift, at 10 runs per side and CV 10%.
 */
describe('verdict logic on simulated data (deterministic by seed)', () => {
  const random = mulberry32(20261130);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const sample = (mean: number) => Array.from({ length: 10 }, () => mean * (1 + 0.1 * normal()));
  const experiments = 400;

  it('claims a difference between identical distributions at most 5% of the time (+ simulation error)', () => {
    let claims = 0;
    for (let i = 0; i < experiments; i++)
      if (compare(sample(100), sample(100), 'higher').verdict !== 'no-difference') claims++;
    assert.ok(claims / experiments <= 0.07, `false-positive rate ${claims / experiments}`);
  });

  it('detects a 20% shift at least 80% of the time', () => {
    let found = 0;
    for (let i = 0; i < experiments; i++)
      if (compare(sample(120), sample(100), 'higher').verdict === 'a-better') found++;
    assert.ok(found / experiments >= 0.8, `detection rate ${found / experiments}`);
  });
});
