import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planSeconds } from '../../../lab/commands/validate.ts';
import { parseLabDefinition } from '../../../lab/definition/load.ts';
import { makePlan, runnablePlan, scenarioMounts } from '../../../lab/plan/plan.ts';
import { boundScenario } from '../../../lab/scenarios/index.ts';

const lab = (extra = '') =>
  parseLabDefinition(
    `name: t
seed: 42
${extra}
hosts:
  - { name: a, profile: overlay2-xfs }
  - { name: b, profile: devicemapper-lvm }
scenarios: { fio: { size: 16M } }
mounts: [layer, volume, bind]
repetitions: 5
`,
    'x.yaml',
  );

describe('plan', () => {
  it('its expected time adds serial trials and takes the busiest host of parallel ones; timed work is the floor', () => {
    const timedLab = (trials: string) =>
      parseLabDefinition(
        `name: t\ntarget: { trials: ${trials} }\nhosts: [{ name: a, profile: overlay2-xfs }, { name: b, profile: overlay2-ext4 }]\n` +
          'scenarios: { fio: { runtime: 10, ramp: 2, jobs: [seqwrite, randread] }, dbench: { duration: 100 }, permissions: {} }\n' +
          'mounts: [layer, volume]\nrepetitions: 3\n',
        'x.yaml',
      );
    const serial = timedLab('serial');
    // Per host and repetition: fio on 2 mounts (2 jobs x 12 s timed), dbench on 2 (120 s timed), permissions once;
    // each scenario's own estimate of a trial.
    const one = (name: 'fio' | 'dbench' | 'permissions') => boundScenario(serial, name).expectedSeconds();
    const perHostRep = { timed: 2 * 24 + 2 * 120, expected: 2 * one('fio') + 2 * one('dbench') + one('permissions') };
    assert.deepEqual(planSeconds(serial, makePlan(serial)), {
      timed: 2 * 3 * perHostRep.timed,
      expected: 2 * 3 * perHostRep.expected,
    });
    const parallel = timedLab('parallel');
    assert.deepEqual(planSeconds(parallel, makePlan(parallel)), {
      timed: 3 * perHostRep.timed,
      expected: 3 * perHostRep.expected,
    });
  });

  it('is reproducible from its seed and changes with it', () => {
    const l = lab();
    assert.deepEqual(makePlan(l), makePlan(l));
    assert.notDeepEqual(makePlan(l).trials, makePlan(l, 43).trials);
  });

  it('runs every cell once per repetition, repetitions in order', () => {
    const plan = makePlan(lab());
    assert.equal(plan.trials.length, 2 * 3 * 5);
    assert.equal(new Set(plan.trials.map((t) => t.id)).size, plan.trials.length);
    for (let rep = 1; rep <= 5; rep++) {
      const block = plan.trials.slice((rep - 1) * 6, rep * 6);
      assert.ok(
        block.every((t) => t.rep === rep),
        'block.every((t) => t.rep === rep)',
      );
      assert.equal(new Set(block.map((t) => `${t.host}/${t.mount}`)).size, 6);
    }
  });

  it('serial mode (local default) interleaves hosts and reshuffles each repetition', () => {
    const plan = makePlan(lab());
    assert.equal(plan.mode, 'serial');
    const orders = new Set<string>();
    for (let rep = 1; rep <= 5; rep++) {
      orders.add(
        plan.trials
          .filter((t) => t.rep === rep)
          .map((t) => `${t.host}/${t.mount}`)
          .join(','),
      );
    }
    assert.ok(orders.size > 1, 'not the same order every repetition');
    const hostsSeq = plan.trials.map((t) => t.host).join('');
    assert.ok(!/^(a{15}b{15}|b{15}a{15})$/.test(hostsSeq), 'hosts are interleaved');
  });

  it('parallel mode shuffles each host on its own', () => {
    const plan = makePlan(lab('target: { trials: parallel }'));
    assert.equal(plan.mode, 'parallel');
    const block = plan.trials.filter((t) => t.rep === 1);
    assert.deepEqual(
      block.map((t) => t.host),
      ['a', 'a', 'a', 'b', 'b', 'b'],
    );
  });

  it('a scenario with its own storage runs once per host and repetition, with mount "none"', () => {
    const mixed = parseLabDefinition(
      `name: t
hosts:
  - { name: a, profile: overlay2-xfs }
  - { name: b, profile: devicemapper-lvm }
scenarios: { fio: { size: 16M }, lifetime: {} }
mounts: [layer, volume]
repetitions: 2
`,
      'x.yaml',
    );
    const trials = makePlan(mixed).trials;
    assert.equal(trials.length, 2 * (2 + 1) * 2);
    const lifetime = trials.filter((t) => t.scenario === 'lifetime');
    assert.deepEqual(lifetime.map((t) => t.id).sort(), [
      'r1-a-lifetime-none',
      'r1-b-lifetime-none',
      'r2-a-lifetime-none',
      'r2-b-lifetime-none',
    ]);
  });

  it('scenarioMounts narrows one scenario to its kinds, in the order of the lab mounts', () => {
    const narrowed = parseLabDefinition(
      `name: t
hosts:
  - { name: a, profile: overlay2-xfs }
scenarios: { fio: { size: 16M }, dbench: {} }
mounts: [layer, volume, bind]
scenarioMounts: { dbench: [bind, layer] }
repetitions: 1
`,
      'x.yaml',
    );
    const ids = makePlan(narrowed)
      .trials.map((t) => t.id)
      .sort();
    assert.deepEqual(ids, [
      'r1-a-dbench-bind',
      'r1-a-dbench-layer',
      'r1-a-fio-bind',
      'r1-a-fio-layer',
      'r1-a-fio-volume',
    ]);
    assert.deepEqual(scenarioMounts('dbench', narrowed), ['layer', 'bind']);
    assert.deepEqual(scenarioMounts('lifetime', narrowed), ['none']);
  });

  it('scenarioRepetitions stops one scenario after its own count; the rest keep every repetition, still shuffled together', () => {
    const capped = parseLabDefinition(
      `name: t
hosts: [{ name: a, profile: overlay2-xfs }, { name: b, profile: devicemapper-lvm }]
scenarios: { fio: { size: 16M }, permissions: {} }
mounts: [layer]
scenarioRepetitions: { permissions: 1 }
repetitions: 3
`,
      'x.yaml',
    );
    const plan = makePlan(capped);
    const permissions = plan.trials.filter((t) => t.scenario === 'permissions').map((t) => t.id);
    assert.deepEqual(permissions.sort(), ['r1-a-permissions-none', 'r1-b-permissions-none']);
    assert.equal(plan.trials.filter((t) => t.scenario === 'fio').length, 2 * 3);
    // validate's estimate follows the plan: 2 permissions trials, not 6.
    const uncapped = parseLabDefinition(
      'name: t\nhosts: [{ name: a, profile: overlay2-xfs }, { name: b, profile: devicemapper-lvm }]\n' +
        'scenarios: { fio: { size: 16M }, permissions: {} }\nmounts: [layer]\nrepetitions: 3\n',
      'x.yaml',
    );
    const saved = planSeconds(uncapped, makePlan(uncapped)).expected - planSeconds(capped, plan).expected;
    assert.equal(saved, 4 * boundScenario(uncapped, 'permissions').expectedSeconds());
  });
});

describe('a recorded plan, resumed', () => {
  it('runs when every scenario is known today; one renamed or removed since is refused naming it (exit 2)', () => {
    const plan = makePlan(lab());
    assert.deepEqual(runnablePlan(plan, 'r'), plan);
    const renamed = { ...plan, trials: plan.trials.map((t) => ({ ...t, scenario: 'fio-classic' })) };
    assert.throws(
      () => runnablePlan(renamed, 'r'),
      (err: Error & { exitCode?: number }) =>
        err.exitCode === 2 &&
        /run r has trials of scenario\(s\) fio-classic, which this version of layerlab does not know; it can be reported/.test(
          err.message,
        ),
    );
  });
});
