/** Only the controller's own ENOSPC stops a run; the guest's is a failed trial. A trial's phases go to its journal entry. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseTrialOutput } from '../../../lab/collect/trial-output.ts';
import { LabError } from '../../../lab/errors.ts';
import type { Trial } from '../../../lab/plan/plan.ts';
import type { JournalEntry } from '../../../lab/record/schemas.ts';
import { type TrialRecord, type TrialSettings, executeTrial, isDiskFull } from '../../../lab/run/executor.ts';
import type { HostSession } from '../../../lab/ssh/session.ts';
import { writeGuestFolder } from '../fake-session.ts';

it('a local ENOSPC is disk full; "No space left" from a guest is not', () => {
  let local: unknown;
  try {
    writeFileSync('/dev/full', 'x'); // always ENOSPC
  } catch (err) {
    local = err;
  }
  assert.equal(isDiskFull(local), true, 'a real ENOSPC from the local filesystem');
  const guest = new LabError('command failed (exit 2): bash run-trial.sh\n    tar: fio.dat: No space left on device', {
    host: 'xfs',
  });
  assert.equal(isDiskFull(guest), false, 'guest stderr quoted in a message');
  assert.equal(isDiskFull(new Error('fio job seqwrite failed with error 28 (ENOSPC)')), false, "fio's own ENOSPC");
  assert.equal(isDiskFull(undefined), false, 'no error');
});

describe("executeTrial: the guest's phases in the journal", () => {
  const work = mkdtempSync(join(tmpdir(), 'layerlab-executor-'));
  after(() => rmSync(work, { recursive: true, force: true }));
  const fio = readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'fio', 'four-jobs.json'), 'utf8');
  const trial: Trial = { id: 't1', host: 'xfs', profile: 'overlay2-xfs', scenario: 'fio', mount: 'layer', rep: 1 };

  /** Runs the trial on a host whose guest sends `phases`; the journal's last entry and what was said. */
  async function run(phases: string, status = 0) {
    const dir = mkdtempSync(join(work, 'run-'));
    const journal: JournalEntry[] = [];
    const said: string[] = [];
    const record: TrialRecord = {
      runId: 'r',
      appendJournal: (e) => journal.push(e as JournalEntry),
      appendSamples: () => {},
      stagingDir: (id) => join(dir, 'staging', id),
      commitTrial: async (id) => {
        mkdirSync(join(dir, 'trials'), { recursive: true });
        renameSync(join(dir, 'staging', id), join(dir, 'trials', id));
        return join(dir, 'trials', id);
      },
    };
    const session = {
      name: 'xfs',
      pull: async (_command: string, local: string) =>
        writeGuestFolder(local, {
          'fio.json': fio,
          'meta.json': JSON.stringify({ start: '100', end: '101', exit_status: String(status) }),
          phases,
        }),
      probe: async () => true,
    } as unknown as HostSession;
    const settings: TrialSettings = {
      env: () => ({}),
      timeoutMs: () => 10_000,
      parse: (d, t) => parseTrialOutput(d, t, 'r'),
      reconnectMs: 0,
      say: (m) => said.push(m),
    };
    await executeTrial(session, record, trial, settings, {});
    return { last: journal.at(-1), said };
  }

  it('a done trial keeps its phases beside its wall time', async () => {
    // Within the trial's wall (a few ms here) and the half second of slack two clocks get.
    const { last, said } = await run('setup 100\nscript 100.1\nwork 100.2\nend 100.3\n');
    assert.equal(last?.state, 'done');
    assert.deepEqual(last?.phases, { setup: 0.1, script: 0.1, work: 0.1 });
    assert.equal(last?.phasesDropped, undefined);
    assert.deepEqual(said, []);
  });

  it('a failed trial keeps them too (its time was spent all the same)', async () => {
    const { last } = await run('setup 100\nend 100.25\n', 1);
    assert.equal(last?.state, 'failed');
    assert.deepEqual(last?.phases, { setup: 0.25 });
  });

  it('phases longer than the trial took are dropped with the reason, said once; the trial stands', async () => {
    const { last, said } = await run('setup 100\nend 4000\n');
    assert.equal(last?.state, 'done', 'timing is not a measurement: the trial is done');
    assert.equal(last?.phases, undefined);
    assert.match(last?.phasesDropped ?? '', /^phases: the guest's marks span 3900\.000 s, longer than the trial's/);
    assert.equal(said.length, 1, said.join('\n'));
    assert.match(said[0] ?? '', /^xfs: t1: phases: .*; its time is not itemised$/);
  });

  it('a garbled file likewise', async () => {
    const { last } = await run('\x1b[31mred 1\n');
    assert.equal(last?.state, 'done');
    assert.match(last?.phasesDropped ?? '', /^phases: line 1: "\\u001b\[31mred 1" is not/);
  });
});
