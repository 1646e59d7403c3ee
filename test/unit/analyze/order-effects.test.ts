import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MIN_DRIFT_TRIALS,
  type OrderEffect,
  controlOrderEffects,
  testOrderEffects,
} from '../../../lab/analyze/order-effects.ts';
import type { Sample } from '../../../lab/record/samples.ts';
import type { MetricSpec } from '../../../lab/scenarios/metric.ts';
import { mulberry32, shuffled } from '../../../lab/util/rng.ts';

const BW: MetricSpec = { name: 'bw', unit: 'KiB/s', better: 'higher', description: 'bandwidth', compare: true };
const SECONDS: MetricSpec = { name: 'seconds', unit: 's', better: 'lower', description: 'wall time', compare: true };

function sample(host: string, mount: string, rep: number, metric: string, value: number): Sample {
  return {
    run: 'r',
    host,
    profile: 'overlay2-xfs',
    scenario: 'fio',
    mount,
    rep,
    trial: `r${rep}-${host}-fio-${mount}`,
    metric,
    value,
    unit: 'x',
    timestamp: 't',
  };
}

describe('the drift check of one cell', () => {
  it('reads positions from the journal order, not from the repetition number', () => {
    // Repetitions 1..6 ran in the order 6, 5, 4, 3, 2, 1 (a resume, say); the values rise with the repetition.
    const samples = [1, 2, 3, 4, 5, 6].map((rep) => sample('h', 'layer', rep, 'bw', 100 + rep));
    const positions = new Map(samples.map((s) => [s.trial, 10 - s.rep]));
    const [cell] = testOrderEffects(samples, [BW], positions);
    assert.equal(cell?.order, 'journal');
    assert.equal(cell?.tau, -1, 'the later a trial ran, the lower its value');
    const [byRep] = testOrderEffects(samples, [BW], new Map());
    assert.equal(byRep?.order, 'repetition', 'without a journal: the repetition number');
    assert.equal(byRep?.tau, 1);
  });

  it('one cell per host, mount, series and metric; only the metrics asked for', () => {
    const samples = [1, 2, 3, 4, 5].flatMap((rep) => [
      sample('a', 'layer', rep, 'bw', 100 + rep),
      sample('a', 'volume', rep, 'bw', 100),
      sample('a', 'layer', rep, 'iops', 1),
    ]);
    const cells = testOrderEffects(samples, [BW], new Map());
    assert.deepEqual(
      cells.map((c) => [c.host, c.mount, c.metric.name, c.n, c.trials]),
      [
        ['a', 'layer', 'bw', 5, 5],
        ['a', 'volume', 'bw', 5, 5],
      ],
    );
    assert.equal(cells[1]?.p, 1, 'a constant cell has nothing to correlate');
  });

  it(`fewer than ${MIN_DRIFT_TRIALS} trials: not tested, and kept out of the family`, () => {
    assert.equal(MIN_DRIFT_TRIALS, 5, '4 trials in perfect order reach only p = 2/4! = 0.083');
    const few = [1, 2, 3, 4].map((rep) => sample('a', 'layer', rep, 'bw', rep));
    const [cell] = testOrderEffects(few, [BW], new Map());
    assert.equal(cell?.verdict, 'too-few-trials');
    assert.equal(cell?.p, undefined);
    const [controlled] = controlOrderEffects([cell as NonNullable<typeof cell>]);
    assert.equal(controlled?.verdict, 'too-few-trials');
    assert.equal(controlled?.family, undefined);
  });

  it("one drifting cell among many is judged by the family's q, not its own p", () => {
    const cell = (p: number): OrderEffect => ({
      host: 'h',
      mount: 'm',
      series: '',
      metric: BW,
      n: 6,
      trials: 6,
      order: 'journal',
      tau: 1,
      p,
      verdict: 'no-drift',
    });
    // Alone p 0.0028 (2/6!) is a drift; among 20 cells with p 1 its q is 20 × 0.0028 = 0.056.
    assert.equal(controlOrderEffects([cell(2 / 720)])[0]?.verdict, 'drift');
    const family = controlOrderEffects([cell(2 / 720), ...Array.from({ length: 19 }, () => cell(1))]);
    assert.equal(family[0]?.verdict, 'no-drift');
    assert.equal(family[0]?.family, 20);
    assert.ok(Math.abs((family[0]?.q ?? 0) - (20 * 2) / 720) < 1e-12, `q ${family[0]?.q}`);
  });
});

/** A standard normal draw (Box–Muller) from a seeded uniform source. */
const normal = (random: () => number) => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());

/**
 * One simulated run with no drift: 2 hosts × 3 mounts, each repetition's 6
 * trials in a shuffled order (as the plan runs them); per trial a bandwidth
 * (continuous, 10% noise) and seconds (whole seconds: many ties). `drift`
 * multiplies one cell's bandwidth by 1 + drift × its trial's position.
 */
function simulatedRun(
  random: () => number,
  repetitions: number,
  drift: number,
): { samples: Sample[]; positions: Map<string, number> } {
  const cells = ['a', 'b'].flatMap((host) => ['layer', 'volume', 'bind'].map((mount) => ({ host, mount })));
  const samples: Sample[] = [];
  const positions = new Map<string, number>();
  for (let rep = 1; rep <= repetitions; rep++) {
    for (const { host, mount } of shuffled(cells, random)) {
      const position = positions.size;
      const drifted = host === 'a' && mount === 'layer' ? 1 + drift * position : 1;
      const s = sample(host, mount, rep, 'bw', 1000 * Math.exp(0.1 * normal(random)) * drifted);
      positions.set(s.trial, position);
      samples.push(s, sample(host, mount, rep, 'seconds', Math.round(20 + 1.5 * normal(random))));
    }
  }
  return { samples, positions };
}

describe('calibration on simulated shuffled runs (deterministic by seed)', () => {
  const flaggedShare = (runs: number, repetitions: number, drift: number, seed: number) => {
    const random = mulberry32(seed);
    let flagged = 0;
    for (let i = 0; i < runs; i++) {
      const { samples, positions } = simulatedRun(random, repetitions, drift);
      const cells = controlOrderEffects(testOrderEffects(samples, [BW, SECONDS], positions));
      if (cells.some((c) => c.verdict === 'drift')) flagged++;
    }
    return flagged / runs;
  };

  it('without a drift, at most 5% of 500 runs (+ simulation error) flag one of their 12 cells', () => {
    // Under "no drift anywhere" the false discovery rate is the chance of any flag: BH keeps it at 5%
    // (the exact test is conservative: about 2% here). Without the control about a fifth of the runs
    // would flag a cell. 500 runs: SE ≈ 1%.
    const share = flaggedShare(500, 6, 0, 7);
    assert.ok(share <= 0.05 + 0.02, `${(share * 100).toFixed(1)}% of null runs flagged a drift`);
  });

  it('a drift of 5% per trial in one cell of 12 is flagged in most runs of 8 repetitions', () => {
    // Its own p is tiny, but it must survive the control over 12 cells: q = 12 × p.
    const share = flaggedShare(200, 8, 0.05, 8);
    assert.ok(share >= 0.8, `only ${(share * 100).toFixed(1)}% of drifting runs flagged`);
  });
});
