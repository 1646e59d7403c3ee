import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Progress } from '../../../lab/run/progress.ts';

describe('progress', () => {
  it('the ETA weighs the trials left by their expected time, at the pace of the finished ones', () => {
    let now = 0;
    // One long trial (expected 200 s) and four short ones (20 s each).
    const expected = new Map([
      ['long', 200],
      ['a', 20],
      ['b', 20],
      ['c', 20],
      ['d', 20],
    ]);
    const progress = new Progress(expected, 1, () => now);
    assert.equal(progress.eta(), '4m40s', 'before any trial: the expected seconds');
    // The long trial took 300 s: this machine runs at 1.5x the estimates.
    now = 300_000;
    progress.finish('h', 'long', true, '');
    assert.equal(progress.eta(), '2m00s', '80 expected seconds left at 1.5x (a mean per trial would say 20 min)');
    now = 330_000;
    progress.finish('h', 'a', true, '');
    assert.equal(progress.eta(), '1m30s');
  });

  it('before any trial, parallel hosts divide the expected time', () => {
    const progress = new Progress(
      new Map([
        ['a', 60],
        ['b', 60],
      ]),
      2,
      () => 0,
    );
    assert.equal(progress.eta(), '1m00s');
  });
});
