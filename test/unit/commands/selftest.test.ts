import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import type { Comparison } from '../../../lab/analyze/verdict.ts';
import { aaLab, aaVerdict, formatAaVerdict, wilson } from '../../../lab/commands/selftest.ts';
import { parseLabDefinition } from '../../../lab/definition/load.ts';

const quick = parseLabDefinition(
  readFileSync(resolve(import.meta.dirname, '..', '..', '..', 'labs', 'quick.yaml'), 'utf8'),
  'labs/quick.yaml',
);

function row(axis: 'mount' | 'profile', verdict: Comparison['verdict'], within = 'volume', metric = 'bw') {
  return {
    scenario: 'fio',
    axis,
    within,
    a: 'a',
    b: 'b',
    series: 'seqread/read',
    metric: { name: metric, unit: 'KiB/s', better: 'higher' as const, compare: true, description: '' },
    result: { nA: 5, nB: 5, verdict, text: verdict },
  };
}

describe('A/A self-check', () => {
  it('builds two identical hosts from the first host, everything else unchanged', () => {
    const aa = aaLab(quick);
    assert.equal(aa.name, 'quick-aa');
    assert.deepEqual(
      aa.hosts.map((h) => h.name),
      ['a', 'b'],
    );
    const { name: _a, ...a } = aa.hosts[0] ?? { name: '' };
    const { name: _b, ...b } = aa.hosts[1] ?? { name: '' };
    const { name: _q, ...first } = quick.hosts[0] ?? { name: '' };
    assert.deepEqual(a, first);
    assert.deepEqual(b, first);
    assert.deepEqual(
      [aa.scenarios, aa.mounts, aa.repetitions, aa.seed],
      [quick.scenarios, quick.mounts, quick.repetitions, quick.seed],
    );
    assert.equal(aaLab({ ...quick, name: 'a-very-long-lab-name-of-31-char' }).name.length <= 31, true);
  });

  it('Wilson interval: known values', () => {
    const { lo, hi } = wilson(1, 20);
    assert.ok(Math.abs(lo - 0.0089) < 0.0005 && Math.abs(hi - 0.2361) < 0.0005, `${lo} ${hi}`);
    assert.deepEqual(wilson(0, 0), { lo: 0, hi: 1 });
    assert.equal(wilson(0, 50).lo, 0);
  });

  it('counts host-vs-host trial families (one scenario on one mount), and flags a rate above the calibrated level', () => {
    // 20 families (fio on 20 mount kinds, made up): one claims on one of its two metrics.
    const rows = [
      ...Array.from({ length: 19 }, (_, i) => [
        row('profile', 'no-difference', `m${i}`),
        row('profile', 'no-difference', `m${i}`, 'clat_p99'),
      ]).flat(),
      row('profile', 'a-better', 'm19'),
      row('profile', 'no-difference', 'm19', 'clat_p99'),
      row('profile', 'not-enough-runs', 'few'),
      row('mount', 'b-better', 'xfs'),
    ];
    const v = aaVerdict(rows);
    assert.deepEqual([v.compared, v.claimed.length, v.notEnough, v.rate, v.tooNoisy], [20, 1, 1, 0.05, false]);
    assert.match(
      formatAaVerdict('r1', v),
      /with a claimed difference: 1 \(5\.0%, 95% Wilson interval 0\.9%–23\.6%\); calibrated level: at most 5\.0%/,
    );
    assert.match(formatAaVerdict('r1', v), /\| fio \| m19 \| seqread\/read \| bw \| a-better \|/);
    // Two claims in one family are one false positive, not two.
    const twice = aaVerdict([row('profile', 'a-better', 'x'), row('profile', 'b-better', 'x', 'clat_p99')]);
    assert.deepEqual([twice.compared, twice.claimed.length], [1, 1]);
    const noisy = aaVerdict([
      ...Array.from({ length: 30 }, (_, i) => row('profile', 'no-difference', `n${i}`)),
      ...Array.from({ length: 10 }, (_, i) => row('profile', 'b-better', `c${i}`)),
    ]);
    assert.equal(noisy.tooNoisy, true);
    assert.match(formatAaVerdict('r2', noisy), /\*\*Higher than the calibrated level\*\*/);
  });
});
