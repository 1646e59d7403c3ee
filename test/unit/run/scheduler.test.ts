/**
 * The scheduler and the trial executor against fake hosts (fake-session.ts):
 * every fault path the VM end-to-end tests cover — retry after a dropped
 * connection, a host that dies, a guest script that fails, output that does
 * not match its MANIFEST, Ctrl-C, a full results disk, and resuming — in
 * seconds. The run record, the MANIFEST check and the fio parser are the real
 * ones; only the host is fake.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadLabDefinition } from '../../../lab/definition/load.ts';
import type { LabDefinition } from '../../../lab/definition/schema.ts';
import { LabError } from '../../../lab/errors.ts';
import { type Plan, makePlan } from '../../../lab/plan/plan.ts';
import { Journal } from '../../../lab/record/journal.ts';
import { RunRecord } from '../../../lab/record/record.ts';
import { readSamples } from '../../../lab/record/samples.ts';
import { schedule } from '../../../lab/run/scheduler.ts';
import { FakeWorld, fakeRunInput } from '../fake-session.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-scheduler-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** labs/quick.yaml (2 hosts × 3 mounts × 5 repetitions of fio), serial or parallel. */
async function quickLab(mode: 'serial' | 'parallel' = 'serial', repetitions = 5): Promise<LabDefinition> {
  const lab = await loadLabDefinition(resolve(import.meta.dirname, '..', '..', '..', 'labs', 'quick.yaml'));
  return {
    ...lab,
    repetitions: { ...lab.repetitions, min: repetitions, max: repetitions },
    target: { ...lab.target, trials: mode },
  };
}

async function newRecord(lab: LabDefinition, plan: Plan): Promise<RunRecord> {
  const fields = {
    startedAt: new Date().toISOString(),
    labFile: 'labs/quick.yaml',
    lab,
    inventory: { target: 'local' as const, hosts: [] },
    plan: { seed: plan.seed, mode: plan.mode },
    gitRevision: 'test',
    versions: {},
    toolImages: {},
  };
  return RunRecord.create(join(work, 'results'), lab.name, fields, plan);
}

function finalStates(record: RunRecord): Map<string, string> {
  const entries = Journal.read(join(record.dir, 'journal.ndjson'));
  return new Map([...Journal.finalStates(entries)].map(([trial, e]) => [trial, e.state]));
}

async function runWith(world: FakeWorld, lab: LabDefinition, signal?: AbortSignal) {
  const plan = makePlan(lab);
  const record = await newRecord(lab, plan);
  const messages: string[] = [];
  const input = { ...fakeRunInput(world, record, lab, plan, messages), signal };
  return { plan, record, messages, input, run: () => schedule(input) };
}

describe('scheduler over fake hosts', () => {
  it('runs every trial in the plan order, one session per host, and records them done with their samples', async () => {
    const world = new FakeWorld();
    const { plan, record, run } = await runWith(world, await quickLab('serial', 2));
    const summary = await run();
    assert.equal(summary.done, plan.trials.length);
    assert.equal(summary.failed + summary.skipped, 0);
    assert.equal(summary.stoppedBy, 'fixed-count');
    const ran = world.events.filter((e) => e.includes(' trial ')).map((e) => e.split(' ')[2]);
    assert.deepEqual(
      ran,
      plan.trials.map((t) => t.id),
      'serial: exactly the plan order',
    );
    assert.equal(world.events.filter((e) => e.endsWith(' open')).length, 2, 'one connection per host for the run');
    assert.equal(world.events.filter((e) => e.endsWith(' close')).length, 2, 'closed at the end');
    assert.ok(existsSync(join(record.dir, 'hosts', 'xfs', 'env', 'summary.json')), 'env captured and checked');
    const samples = readSamples(join(record.dir, 'samples.ndjson'));
    assert.equal(
      samples.length,
      plan.trials.length * 20,
      '4 fio jobs × 5 values (bw, iops, clat p50/p99/mean) per trial',
    );
    assert.ok(
      [...finalStates(record).values()].every((s) => s === 'done'),
      'every journal state is done',
    );
    assert.deepEqual(readdirSync(join(record.dir, 'trials')).sort(), plan.trials.map((t) => t.id).sort());
  });

  it('parallel: each host runs its own trials in plan order, hosts at the same time', async () => {
    const world = new FakeWorld();
    const { plan, run } = await runWith(world, await quickLab('parallel', 1));
    await run();
    for (const host of ['xfs', 'dm']) {
      const ran = world.events.filter((e) => e.startsWith(`${host} trial `)).map((e) => e.split(' ')[2]);
      assert.deepEqual(
        ran,
        plan.trials.filter((t) => t.host === host).map((t) => t.id),
      );
    }
    const firstTrials = world.events
      .filter((e) => e.includes(' trial '))
      .slice(0, 2)
      .map((e) => e.split(' ')[0]);
    assert.deepEqual(new Set(firstTrials), new Set(['xfs', 'dm']), 'both hosts start before either finishes all');
  });

  it('a dropped connection: reconnect, run the trial once more, journal says why; the run goes on', async () => {
    const world = new FakeWorld();
    const lab = await quickLab('serial', 1);
    const target = makePlan(lab).trials[1]?.id as string;
    world.behaviours.set(target, 'drop');
    const { plan, record, messages, run } = await runWith(world, lab);
    const summary = await run();
    assert.equal(summary.done, plan.trials.length, 'the retried trial counts once, as done');
    assert.ok(world.events.includes(`${plan.trials[1]?.host} trial ${target} again`), 'the trial ran again');
    assert.ok(
      messages.some((m) => m.includes(`connection lost during ${target}; reconnecting`)),
      'the person is told',
    );
    const entries = Journal.read(join(record.dir, 'journal.ndjson')).filter((e) => e.trial === target);
    assert.deepEqual(
      entries.map((e) => [e.state, e.reason ?? '']),
      [
        ['started', ''],
        ['started', 'again: connection lost'],
        ['done', ''],
      ],
    );
    const samples = readSamples(join(record.dir, 'samples.ndjson')).filter((s) => s.trial === target);
    assert.equal(samples.length, 20, 'samples of the trial once, not twice');
  });

  it('a host that dies: its remaining trials fail naming it, the other host finishes', async () => {
    const world = new FakeWorld();
    const lab = await quickLab('serial', 2);
    const plan = makePlan(lab);
    const firstDm = plan.trials.find((t) => t.host === 'dm')?.id as string;
    world.behaviours.set(firstDm, 'dies');
    const { record, run } = await runWith(world, lab);
    const summary = await run();
    const dmTrials = plan.trials.filter((t) => t.host === 'dm').length;
    assert.equal(summary.failed, dmTrials, 'every dm trial failed');
    assert.equal(summary.done, plan.trials.length - dmTrials, 'every xfs trial done');
    assert.ok(
      summary.failures.every((f) => f.host === 'dm' && /host dm stopped answering/.test(f.reason)),
      'each failure names the dead host',
    );
    assert.equal(world.events.filter((e) => e.startsWith('dm trial ')).length, 1, 'no trial sent to a dead host');
    const states = finalStates(record);
    assert.ok(
      plan.trials.every((t) => states.get(t.id) === (t.host === 'dm' ? 'failed' : 'done')),
      'journal: dm failed, xfs done',
    );
  });

  it('a failing guest script and output that does not match its MANIFEST fail their trials only, with the reason', async () => {
    const world = new FakeWorld();
    const lab = await quickLab('serial', 1);
    const [, second, third] = makePlan(lab).trials;
    world.behaviours.set(second?.id as string, 'guest-fails');
    world.behaviours.set(third?.id as string, 'bad-manifest');
    const { plan, record, run } = await runWith(world, lab);
    const summary = await run();
    assert.equal(summary.failed, 2);
    assert.equal(summary.done, plan.trials.length - 2);
    const reason = (id: string | undefined) => summary.failures.find((f) => f.trial === id)?.reason ?? '';
    assert.match(reason(second?.id), /guest script exited with 1/);
    assert.match(reason(third?.id), /pulled files do not match what the guest wrote: fio\.json: .*differs|bytes/);
    assert.ok(!existsSync(join(record.dir, 'trials', third?.id as string)), 'unchecked output never lands');
    assert.ok(!world.events.some((e) => e.includes(' again')), 'a trial failure is not retried');
    const samples = readSamples(join(record.dir, 'samples.ndjson'));
    assert.ok(!samples.some((s) => s.trial === second?.id || s.trial === third?.id), 'failed trials add no samples');
  });

  it('Ctrl-C: the trial in flight finishes, nothing new starts, the run is marked interrupted', async () => {
    const world = new FakeWorld();
    const controller = new AbortController();
    const lab = await quickLab('serial', 2);
    const { plan, record, input } = await runWith(world, lab, controller.signal);
    const stopAfter = plan.trials[2]?.id as string;
    const pull = input.openSession;
    input.openSession = async (host, deadline) => {
      const session = await pull(host, deadline);
      const inner = session.pull.bind(session);
      session.pull = async (command, dir, timeoutMs) => {
        await inner(command, dir, timeoutMs);
        if (command.includes(stopAfter)) controller.abort(new Error('SIGINT'));
      };
      return session;
    };
    const summary = await schedule(input);
    assert.equal(summary.stoppedBy, 'interrupted');
    assert.equal(summary.done, 3, 'the trial in flight completed');
    assert.equal(summary.skipped, plan.trials.length - 3);
    assert.equal(finalStates(record).size, 3, 'no trial started after the signal');
  });

  it('a full results disk stops the run at once with what to do; finished trials stay, the one in flight stays started', async () => {
    const world = new FakeWorld();
    const lab = await quickLab('serial', 1);
    const target = makePlan(lab).trials[3]?.id as string;
    world.behaviours.set(target, 'enospc');
    const { record, run } = await runWith(world, lab);
    await assert.rejects(run(), (err: unknown) => {
      assert.ok(err instanceof LabError, 'a LabError (exit 1 with where and what to do)');
      assert.match(err.message, /results disk is full.*layerlab run --resume/);
      return true;
    });
    const states = finalStates(record);
    assert.equal(states.get(target), 'started', 'resume reruns it');
    assert.equal([...states.values()].filter((s) => s === 'done').length, 3);
    assert.equal(states.size, 4, 'no trial after it started');
    assert.ok(existsSync(join(record.dir, 'summary.json')), 'summary written on the way out');
    assert.ok(world.events.filter((e) => e.endsWith(' close')).length === 2, 'sessions closed');
  });

  it("the run's end (tearDown) runs on every readied host, after a halt too, before the sessions close", async () => {
    const world = new FakeWorld();
    const lab = await quickLab('serial', 1);
    world.behaviours.set(makePlan(lab).trials[2]?.id as string, 'enospc');
    const { input, messages } = await runWith(world, lab);
    const ended: string[] = [];
    const closedBefore: number[] = [];
    input.tearDown = async (_session, host) => {
      closedBefore.push(world.events.filter((e) => e.endsWith(' close')).length);
      ended.push(host.name);
      if (host.name === 'dm') throw new Error('docker rm failed\nmore');
    };
    await assert.rejects(schedule(input), /results disk is full/);
    assert.deepEqual(ended.sort(), ['dm', 'xfs'], 'both hosts, although the run halted');
    assert.deepEqual(closedBefore, [0, 0], 'while their sessions are open');
    assert.equal(world.events.filter((e) => e.endsWith(' close')).length, 2, 'sessions closed after');
    assert.ok(
      messages.includes('dm: the end of the run did not finish: docker rm failed'),
      `a host whose end fails is named, its first line only: ${messages.join(' | ')}`,
    );
  });

  it('resume: done trials stay with their samples, the rest run once; the result is an uninterrupted run', async () => {
    const world = new FakeWorld();
    const lab = await quickLab('serial', 2);
    const plan = makePlan(lab);
    const cut = plan.trials[4]?.id as string;
    world.behaviours.set(cut, 'enospc');
    const first = await runWith(world, lab);
    await assert.rejects(first.run());
    const reopened = RunRecord.open(first.record.dir);
    const resume = await reopened.resumePoint();
    assert.equal(resume.done.size, 4);
    const messages: string[] = [];
    const summary = await schedule({ ...fakeRunInput(world, reopened, lab, plan, messages), resume });
    assert.equal(summary.done, plan.trials.length);
    assert.equal(summary.failed + summary.skipped, 0);
    const samples = readSamples(join(reopened.dir, 'samples.ndjson'));
    assert.equal(samples.length, plan.trials.length * 20, 'every trial counted exactly once');
    assert.ok(existsSync(join(reopened.dir, 'hosts', 'xfs', 'env')), 'the first environment stays');
    assert.ok(
      readdirSync(join(reopened.dir, 'hosts', 'xfs')).some((d) => d.startsWith('env.resumed-')),
      'the resumption adds its own',
    );
    const ranTwice = world.events.filter((e) => e.includes(` trial ${plan.trials[0]?.id}`));
    assert.equal(ranTwice.length, 1, 'a done trial is not run again');
  });

  it('a host that cannot be reached at the start fails the run before any trial', async () => {
    const world = new FakeWorld();
    const { input } = await runWith(world, await quickLab('serial', 1));
    input.openSession = async (host) => {
      throw new LabError('cannot reach SSH at 127.0.0.1:1 after 3 attempt(s)', { host: host.name, phase: 'ssh' });
    };
    await assert.rejects(schedule(input), /cannot reach SSH/);
    assert.ok(!world.events.some((e) => e.includes(' trial ')), 'no trial started');
  });
});
