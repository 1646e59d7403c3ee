import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLabDefinition } from '../../../lab/definition/load.ts';
import type { Sample } from '../../../lab/record/samples.ts';
import { stopAfter, widestInterval } from '../../../lab/run/stop-rule.ts';
import { mulberry32 } from '../../../lab/util/rng.ts';

const lab = (repetitions: string) =>
  parseLabDefinition(
    `name: t
hosts: [{ name: a, profile: overlay2-xfs }, { name: b, profile: devicemapper-lvm }]
scenarios: { fio: { size: 16M } }
mounts: [layer, volume]
repetitions: ${repetitions}
`,
    'x.yaml',
  );

/** fio-like samples for `reps` repetitions with relative noise `cv` (deterministic). */
function samples(reps: number, cv: number): Sample[] {
  const random = mulberry32(7);
  const out: Sample[] = [];
  for (const host of ['a', 'b'])
    for (const mount of ['layer', 'volume'])
      for (let rep = 1; rep <= reps; rep++)
        for (const [metric, base] of [
          ['bw', 1000],
          ['clat_p99', 50],
        ] as const)
          out.push({
            run: 'r',
            host,
            profile: host === 'a' ? 'overlay2-xfs' : 'devicemapper-lvm',
            scenario: 'fio',
            mount,
            rep,
            trial: `r${rep}-${host}-fio-${mount}`,
            metric,
            value: base * (1 + cv * (random() - 0.5) * 2),
            unit: 'x',
            timestamp: '',
            job: 'randread',
            direction: 'read',
          });
  return out;
}

describe('stop rule', () => {
  it('a fixed count runs to the end', () => {
    const l = lab('3');
    assert.deepEqual(stopAfter(l, 2, 0, []), { stop: false });
    assert.deepEqual(stopAfter(l, 3, 0, []), { stop: true, reason: 'fixed-count' });
  });

  it('never stops before min, always at max', () => {
    const l = lab('{ min: 3, max: 6, targetCiWidth: 0.5 }');
    assert.equal(stopAfter(l, 2, 0, samples(2, 0.01)).stop, false);
    assert.deepEqual(stopAfter(l, 6, 0, samples(6, 0.9)), { stop: true, reason: 'max-repetitions' });
  });

  it('stops once every compared interval is narrower than the target', () => {
    const l = lab('{ min: 3, max: 20, targetCiWidth: 0.1 }');
    const tight = stopAfter(l, 5, 0, samples(5, 0.01));
    assert.equal(tight.reason, 'target-ci-width');
    assert.ok((tight.widest ?? 1) < 0.1, '(tight.widest ?? 1) < 0.1');
    const noisy = stopAfter(l, 5, 0, samples(5, 0.4));
    assert.equal(noisy.stop, false);
    assert.ok((noisy.widest ?? 0) >= 0.1, '(noisy.widest ?? 0) >= 0.1');
  });

  it('scenarios that compare nothing, or have had all their repetitions, do not hold a stop rule back', () => {
    const withOthers = (extra: string) =>
      parseLabDefinition(
        `name: t
hosts: [{ name: a, profile: overlay2-xfs }, { name: b, profile: devicemapper-lvm }]
scenarios: { fio: { size: 16M }, permissions: {}, dbench: {} }
mounts: [layer, volume]
${extra}
repetitions: { min: 3, max: 20, targetCiWidth: 0.1 }
`,
        'x.yaml',
      );
    // permissions has yes/no outcomes only; dbench, capped at 2, has no samples that could ever narrow.
    const capped = withOthers('scenarioRepetitions: { dbench: 2 }');
    assert.equal(stopAfter(capped, 5, 0, samples(5, 0.01)).reason, 'target-ci-width');
    // Uncapped, dbench's missing runs keep the interval unbounded.
    assert.equal(widestInterval(withOthers(''), samples(5, 0.01), 5), Number.POSITIVE_INFINITY);
  });

  it('widest interval is unbounded while a pair has too few runs', () => {
    assert.equal(widestInterval(lab('3'), samples(2, 0.01)), Number.POSITIVE_INFINITY);
  });

  it('stops when one more repetition would exceed the time budget', () => {
    const l = lab('{ min: 2, max: 20, targetCiWidth: 0.01, budgetMinutes: 10 }');
    // 3 repetitions took 8 minutes: a 4th (~2.7 min) would pass 10.
    assert.deepEqual(stopAfter(l, 3, 8 * 60_000, samples(3, 0.4)), { stop: true, reason: 'budget' });
    assert.equal(stopAfter(l, 3, 6 * 60_000, samples(3, 0.4)).stop, false);
  });
});
