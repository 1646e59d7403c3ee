/** loadRun's trial times: the journal's wall and phases per done trial, runs before phases included. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadRun } from '../../../lab/record/load.ts';
import { TRIAL_PHASES_FIXTURE, TRIAL_WALL_FIXTURE, writeRun } from '../run-fixture.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-load-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** The run's journal lines, edited by `edit`, written back. */
function editJournal(dir: string, edit: (entry: Record<string, unknown>) => Record<string, unknown>): void {
  const path = join(dir, 'journal.ndjson');
  const lines = readFileSync(path, 'utf8').trim().split('\n');
  writeFileSync(path, `${lines.map((l) => JSON.stringify(edit(JSON.parse(l)))).join('\n')}\n`);
}

describe('loadRun: trial times', () => {
  it('a run with phases: every done trial with its scenario (from the plan), wall and phases', () => {
    const dir = join(work, 'phased');
    writeRun(dir, { phases: true, repetitions: 2 });
    const run = loadRun(dir);
    assert.equal(run.times?.length, 8, '2 repetitions × 2 hosts × 2 mounts done; the failed trial left out');
    for (const t of run.times ?? []) {
      assert.equal(t.scenario, 'fio');
      assert.equal(t.wallSeconds, TRIAL_WALL_FIXTURE);
      assert.deepEqual(t.phases, TRIAL_PHASES_FIXTURE);
    }
  });

  it('a trial failed on re-parse is not among them', () => {
    const dir = join(work, 'reparsed');
    writeRun(dir, { phases: true, repetitions: 2 });
    const run = loadRun(dir, new Map([['r1-xfs-fio-layer', { host: 'xfs', reason: 'garbled' }]]));
    assert.ok(!run.times?.some((t) => t.trial === 'r1-xfs-fio-layer'), 'the re-parse failure is its last state');
    assert.equal(run.times?.length, 7);
  });

  it('a run recorded before phases (wall times, no phases) loads; its trials have none', () => {
    const dir = join(work, 'before');
    writeRun(dir, { repetitions: 2 });
    editJournal(dir, (e) => (e.state === 'done' ? { ...e, wallSeconds: 12.5, guestSeconds: 10 } : e));
    const run = loadRun(dir);
    assert.equal(run.times?.length, 8);
    assert.ok(
      run.times?.every((t) => t.phases === undefined && t.wallSeconds === 12.5),
      JSON.stringify(run.times?.[0]),
    );
  });

  it('a run without wall times either (the oldest journals): no trial times, no error', () => {
    const dir = join(work, 'oldest');
    writeRun(dir, { repetitions: 2 });
    assert.deepEqual(loadRun(dir).times, []);
  });

  it('dropped phases keep their reason; a phase name this version does not know does not refuse the journal', () => {
    const dir = join(work, 'odd');
    writeRun(dir, { phases: true, repetitions: 1 });
    editJournal(dir, (e) =>
      e.trial === 'r1-xfs-fio-layer'
        ? { ...e, phases: undefined, phasesDropped: 'phases: line 1: garbled' }
        : e.trial === 'r1-dm-fio-layer'
          ? { ...e, phases: { work: 3, snooze: 1 } }
          : e,
    );
    const times = new Map(loadRun(dir).times?.map((t) => [t.trial, t]));
    assert.equal(times.get('r1-xfs-fio-layer')?.phasesDropped, 'phases: line 1: garbled');
    assert.equal(times.get('r1-xfs-fio-layer')?.phases, undefined);
    assert.deepEqual(times.get('r1-dm-fio-layer')?.phases, { work: 3, snooze: 1 });
  });

  it('a negative phase is refused, naming the journal line (the record wrote only what it checked)', () => {
    const dir = join(work, 'negative');
    writeRun(dir, { phases: true, repetitions: 1 });
    editJournal(dir, (e) => (e.trial === 'r1-xfs-fio-layer' ? { ...e, phases: { work: -1 } } : e));
    assert.throws(() => loadRun(dir), /journal\.ndjson:\d+: .*phases/);
  });
});
