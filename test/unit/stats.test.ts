import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ratioOfMediansCI } from '../../lab/analyze/bootstrap.ts';
import { MIN_RUNS, compare } from '../../lab/analyze/compare.ts';
import { binomialTail, describe as describeCell, quantile } from '../../lab/analyze/stats.ts';
import { mulberry32 } from '../../lab/util/rng.ts';

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
});

describe('ratio of medians with a bootstrap interval', () => {
  it('identical samples: ratio 1 and a zero-width interval', () => {
    const ci = ratioOfMediansCI([10, 10, 10, 10], [10, 10, 10, 10]);
    assert.deepEqual(ci && [ci.ratio, ci.lo, ci.hi], [1, 1, 1]);
  });

  it('a constant factor shows as that ratio, interval around it', () => {
    const b = [10, 11, 12, 13, 14];
    const ci = ratioOfMediansCI(
      b.map((x) => x * 2),
      b,
    );
    assert.equal(ci?.ratio, 2);
    assert.ok(ci && ci.lo <= 2 && ci.hi >= 2, 'ci && ci.lo <= 2 && ci.hi >= 2');
  });

  it('is reproducible by seed', () => {
    const a = [1, 5, 2, 8, 3];
    const b = [2, 4, 6, 3, 3];
    assert.deepEqual(ratioOfMediansCI(a, b, { seed: 9 }), ratioOfMediansCI(a, b, { seed: 9 }));
  });

  it('a zero median in the denominator has no ratio', () => {
    assert.equal(ratioOfMediansCI([1, 2, 3], [0, 0, 1]), undefined);
  });
});

describe('verdicts', () => {
  it('below the minimum number of runs nothing is claimed', () => {
    const c = compare([100, 101], [50, 51], 'higher');
    assert.equal(c.verdict, 'not-enough-runs');
    assert.match(c.text, new RegExp(`not enough runs \\(n = 2 vs 2; need ${MIN_RUNS}\\)`));
  });

  it('a clear gap is named with its size and interval, direction-aware', () => {
    const fast = [200, 202, 198, 201, 199];
    const slow = [100, 101, 99, 100, 102];
    const bw = compare(fast, slow, 'higher');
    assert.equal(bw.verdict, 'a-better');
    assert.match(bw.text, /^A is 10\d% higher — better \(ratio 2\.0\d, CI \d\.\d\d–\d\.\d\d\)$/);
    const latency = compare(fast, slow, 'lower');
    assert.equal(latency.verdict, 'b-better', 'higher latency is worse');
    assert.match(latency.text, /higher — worse/);
  });

  it('overlapping noise is "no consistent difference"', () => {
    const c = compare([100, 120, 90, 110, 95], [105, 98, 115, 92, 108], 'higher');
    assert.equal(c.verdict, 'no-difference');
    assert.match(c.text, /^no consistent difference \(ratio \d\.\d\d, CI \d\.\d\d–\d\.\d\d\)$/);
  });

  it('identical samples are no difference; a zero median is undefined', () => {
    assert.equal(compare([5, 5, 5], [5, 5, 5], 'higher').verdict, 'no-difference');
    assert.equal(compare([1, 2, 3], [0, 0, 0], 'higher').verdict, 'undefined');
  });

  it('reports the minimum detectable effect at the achieved n', () => {
    const c = compare([100, 110, 90, 105, 95, 100], [100, 110, 90, 105, 95, 100], 'higher');
    assert.ok(
      c.minDetectable !== undefined && c.minDetectable > 0.05 && c.minDetectable < 0.5,
      String(c.minDetectable),
    );
  });
});

/**
 * The verdict logic as a whole, on simulated experiments: how often it claims
 * a difference between identical distributions (false positives) and how
 * often it finds a real 20% shift (power), at the default repetitions.
 */
describe('verdict logic on simulated data (deterministic by seed)', () => {
  const DEFAULT_N = 10;
  // Noise like volume vs bind vs layer under TCG (DESIGN: within ±10-15%).
  const CV = 0.1;
  const random = mulberry32(20261130);
  const normal = () => {
    const u = 1 - random();
    const v = random();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
  const sample = (mean: number) => Array.from({ length: DEFAULT_N }, () => mean * (1 + CV * normal()));
  const experiments = 300;

  it('claims a difference between identical distributions at most 5% of the time', () => {
    let claims = 0;
    for (let i = 0; i < experiments; i++) {
      if (compare(sample(100), sample(100), 'higher', { seed: i }).verdict !== 'no-difference') claims++;
    }
    assert.ok(claims / experiments <= 0.05, `false-positive rate ${claims / experiments}`);
  });

  it('detects a 20% shift at least 80% of the time', () => {
    let found = 0;
    for (let i = 0; i < experiments; i++) {
      if (compare(sample(120), sample(100), 'higher', { seed: i }).verdict === 'a-better') found++;
    }
    assert.ok(found / experiments >= 0.8, `detection rate ${found / experiments}`);
  });
});

describe('binomialTail', () => {
  it('is P(X >= k) of a binomial, checked against values worked by hand', () => {
    assert.equal(binomialTail(0, 12, 0.05), 1);
    // 1 - 0.95^12 = 0.4596; minus 12 * 0.05 * 0.95^11 = 0.3413 -> 0.1184
    for (const [k, expected] of [
      [1, 0.4596],
      [2, 0.1184],
      [3, 0.0196],
    ] as const) {
      const got = binomialTail(k, 12, 0.05);
      assert.ok(Math.abs(got - expected) < 1e-4, `P(X >= ${k}) = ${got}, expected ${expected}`);
    }
    assert.equal(binomialTail(13, 12, 0.05), 0);
  });
});
