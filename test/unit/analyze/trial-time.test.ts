/** Where each scenario's trial wall time went: the guest's phases summed into the report's parts. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TIME_PARTS, accountTrialTime } from '../../../lab/analyze/trial-time.ts';
import type { TrialTime } from '../../../lab/record/load.ts';
import { TRIAL_PHASES } from '../../../lab/record/schemas.ts';

const FIO_TRIAL: TrialTime = {
  trial: 't1',
  scenario: 'fio',
  wallSeconds: 14,
  phases: { setup: 0.05, script: 0.15, mount: 0.3, start: 1.5, work: 8, output: 0.4, cleanup: 0.55, finish: 0.05 },
};

const sum = (parts: Record<string, number>) => Object.values(parts).reduce((a, b) => a + b, 0);

describe('accountTrialTime', () => {
  it("fio: the jobs' fixed seconds are timed work, the rest of its run tool overhead; the wall outside the marks the controller's", () => {
    const [fio, ...rest] = accountTrialTime([FIO_TRIAL, { ...FIO_TRIAL, trial: 't2' }], () => 6);
    assert.equal(rest.length, 0, 'one row per scenario');
    assert.ok(fio, 'a row for fio');
    assert.equal(fio.trials, 2);
    assert.equal(fio.wallSeconds, 28);
    assert.deepEqual(Object.fromEntries(Object.entries(fio.parts).map(([k, v]) => [k, Number(v.toFixed(6))])), {
      timed: 12,
      tool: 4,
      start: 3,
      storage: 0.6,
      after: 1.9,
      harness: 0.5,
      outside: 6,
    });
    assert.ok(Math.abs(sum(fio.parts) - fio.wallSeconds) < 1e-9, 'the parts add up to the wall');
    assert.equal(fio.ratio, 28 / 12, 'wall / timed work');
  });

  it('a scenario that times itself (backup, lifecycle): all of its work phase is timed work', () => {
    const [row] = accountTrialTime([{ ...FIO_TRIAL, scenario: 'backup' }], () => undefined);
    assert.equal(row?.parts.timed, 8);
    assert.equal(row?.parts.tool, 0);
    assert.equal(row?.ratio, 14 / 8);
  });

  it('a work phase shorter than the fixed seconds (a tool cut short): all timed, no overhead below zero', () => {
    const [row] = accountTrialTime([FIO_TRIAL], () => 100);
    assert.equal(row?.parts.timed, 8);
    assert.equal(row?.parts.tool, 0);
  });

  it("a guest clock a little fast (marks longer than the wall): no negative controller's share", () => {
    const [row] = accountTrialTime([{ ...FIO_TRIAL, wallSeconds: 10 }], () => 6);
    assert.equal(row?.parts.outside, 0);
  });

  it('trials without phases are counted apart, with the first reason they were dropped; nothing timed: no ratio', () => {
    const [row] = accountTrialTime(
      [
        { trial: 'a', scenario: 'fio', wallSeconds: 9 },
        { trial: 'b', scenario: 'fio', wallSeconds: 9, phasesDropped: 'phases: line 1: garbled' },
        { trial: 'c', scenario: 'fio', wallSeconds: 9, phasesDropped: 'phases: later' },
      ],
      () => 6,
    );
    assert.equal(row?.trials, 0);
    assert.equal(row?.unitemised, 3);
    assert.equal(row?.dropped, 'phases: line 1: garbled');
    assert.equal(row?.wallSeconds, 0, 'the wall of itemised trials only');
    assert.equal(row?.ratio, undefined);
  });

  it('a phase name this version does not know (a hand-edited journal) is left to the outside share', () => {
    const odd = { ...FIO_TRIAL, phases: { work: 8, nap: 3 } as TrialTime['phases'] };
    const [row] = accountTrialTime([odd], () => undefined);
    assert.equal(row?.parts.outside, 6);
  });

  it('scenarios in the order they first appear; every part in TIME_PARTS order', () => {
    const rows = accountTrialTime(
      [
        { ...FIO_TRIAL, scenario: 'lifecycle' },
        { ...FIO_TRIAL, scenario: 'fio' },
      ],
      () => undefined,
    );
    assert.deepEqual(
      rows.map((r) => r.scenario),
      ['lifecycle', 'fio'],
    );
    assert.deepEqual(
      Object.keys(rows[0]?.parts ?? {}),
      TIME_PARTS.map((p) => p.key),
    );
  });

  it('every guest phase belongs to exactly one part (work is split into timed and tool)', () => {
    const named = TIME_PARTS.flatMap((p) => [...p.phases]);
    assert.deepEqual([...named, 'work'].sort(), [...TRIAL_PHASES].sort(), 'TRIAL_PHASES, each once');
  });
});
