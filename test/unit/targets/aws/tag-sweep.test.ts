/**
 * `sweep --cloud` from EC2's tags alone (Pulumi's state lost), against the
 * fault-injecting EC2 endpoint on 127.0.0.1: expired labs go, in dependency
 * order, through throttling and eventual consistency; nothing else is touched.
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { groupLabs, sweepTaggedLabs } from '../../../../lab/targets/aws/tag-sweep.ts';
import { FAST_BACKOFF, FUTURE, type FakeEc2, labTags as tags, useFakeEc2 } from './fake-ec2.ts';

const PAST = '2026-01-01T00:00:00.000Z';

/** Every deletion-like call and the ids it named. */
function touchedIds(fake: FakeEc2): string[] {
  return fake.calls
    .filter((c) => !c.action.startsWith('Describe'))
    .flatMap((c) =>
      Object.entries(c.params)
        .filter(([k]) => k !== 'Action' && k !== 'Version')
        .map(([, v]) => v),
    );
}

describe('targets/aws/tag-sweep: expired labs found by their tags', () => {
  const aws = useFakeEc2();
  const { fake } = aws;
  let lines: string[];
  const say = (l: string) => lines.push(l);
  beforeEach(() => {
    lines = [];
  });

  it('deletes an expired lab in dependency order through throttling and eventual consistency, and nothing else', async () => {
    const expired = fake.addLab(tags('old', 'run-1', PAST), 2);
    const fresh = fake.addLab(tags('fresh', 'run-2', FUTURE));
    // Same lab name, other run, not expired: kept although its name matches.
    const sibling = fake.addLab(tags('old', 'run-3', FUTURE));
    const untagged = [
      fake.add('instance', { Name: 'someone-else' }),
      fake.add('volume', { Name: 'theirs', 'layerlab:expires': PAST }),
      fake.add('security-group', {}),
    ];
    fake.faults = {
      throttle: { DescribeInstances: 2, TerminateInstances: 1, DeleteSecurityGroup: 2, DescribeVpcs: 1 },
      shuttingDownDescribes: 3,
      lingerDescribes: 2,
      groupBusyAfterTerminate: 2,
    };
    const failures = await sweepTaggedLabs(aws.ec2, { backoff: FAST_BACKOFF, say });
    assert.equal(failures, 0, lines.join('\n'));
    const expiredIds = new Set(expired.map((r) => r.id));
    assert.deepEqual(
      fake.live().filter((r) => expiredIds.has(r.id)),
      [],
      'every resource of the expired lab is gone',
    );
    const kept = [...fresh, ...sibling, ...untagged];
    assert.equal(kept.filter((r) => fake.live().includes(r)).length, kept.length, 'the rest is untouched');
    const touched = new Set(touchedIds(fake));
    for (const r of kept) assert.ok(!touched.has(r.id), `no call named ${r.kind} ${r.id}`);
    // The faults were met, not avoided.
    assert.ok(
      fake.calls.some((c) => c.status === 503),
      'throttled at least once',
    );
    assert.ok(
      fake.calls.some((c) => c.action === 'DeleteSecurityGroup' && c.status === 400),
      'the group was busy once',
    );
    // Dependency order: the last instance terminated before any group deletion, the VPC last.
    const order = fake.calls.filter((c) => c.status === 200 && !c.action.startsWith('Describe')).map((c) => c.action);
    assert.ok(order.indexOf('TerminateInstances') < order.indexOf('DeleteVolume'), order.join(' '));
    assert.ok(order.indexOf('DeleteKeyPair') < order.indexOf('DeleteSecurityGroup'), order.join(' '));
    assert.ok(order.indexOf('DeleteSubnet') < order.indexOf('DeleteRouteTable'), order.join(' '));
    assert.equal(order.at(-1), 'DeleteVpc');
    assert.match(lines.join('\n'), /deleted lab old run run-1/);
    assert.match(lines.join('\n'), /keep lab fresh run run-2/);
  });

  it('names what is left when a deletion never happens (a volume that survives), and counts a failure', async () => {
    const lab = fake.addLab(tags('old', 'run-1', PAST));
    const dataVolume = lab.find((r) => r.kind === 'volume' && !r.deleteOnTermination);
    assert.ok(dataVolume, 'the lab has a data volume');
    fake.survive(dataVolume.id);
    const failures = await sweepTaggedLabs(aws.ec2, { backoff: { ...FAST_BACKOFF, timeoutMs: 500 }, say });
    assert.equal(failures, 1);
    const text = lines.join('\n');
    assert.match(text, new RegExp(`volume ${dataVolume.id} \\(available\\) \\[layerlab:lab=old layerlab:run=run-1`));
    assert.match(text, /could not delete lab old run run-1/);
  });

  it('an expired lab whose Pulumi stack could not be destroyed is left to Pulumi', async () => {
    fake.addLab(tags('old', 'run-1', PAST));
    const failures = await sweepTaggedLabs(aws.ec2, { backoff: FAST_BACKOFF, say, skipLabs: new Set(['old']) });
    assert.equal(failures, 0);
    assert.deepEqual(touchedIds(fake), []);
    assert.match(lines.join('\n'), /leave \(its Pulumi stack could not be destroyed\) lab old run run-1/);
  });

  it('--dry-run lists and deletes nothing', async () => {
    fake.addLab(tags('old', 'run-1', PAST));
    assert.equal(await sweepTaggedLabs(aws.ec2, { backoff: FAST_BACKOFF, say, dryRun: true }), 0);
    assert.deepEqual(touchedIds(fake), []);
    assert.match(lines.join('\n'), /would delete lab old run run-1/);
  });

  it('an EC2 error that is not "slow down" or "not yet" stops the sweep as an infrastructure error (code, request id)', async () => {
    fake.faults = { throttle: { DescribeInstances: 1000 } };
    await assert.rejects(
      sweepTaggedLabs(aws.ec2, { backoff: { ...FAST_BACKOFF, timeoutMs: 200 }, say }),
      (err: Error & { exitCode?: number }) =>
        err.name === 'InfraError' &&
        err.exitCode === 3 &&
        /RequestLimitExceeded, request id [0-9a-f-]{36}/.test(err.message),
    );
  });
});

describe('targets/aws/tag-sweep: groupLabs', () => {
  const r = (id: string, t: Record<string, string>) => ({ type: 'volume' as const, id, tags: t });
  it('a lab is expired only when every resource has a readable expiry that has passed', () => {
    const now = Date.parse('2026-06-01T00:00:00Z');
    const labs = groupLabs(
      [
        r('a', tags('x', '1', PAST)),
        r('b', tags('x', '1', FUTURE)),
        r('c', tags('y', '1', PAST)),
        r('d', { ...tags('y', '1', PAST), 'layerlab:expires': 'soon' }),
        r('e', tags('z', '1', PAST)),
        r('f', { 'layerlab:lab': 'norun', 'layerlab:expires': PAST }),
      ],
      now,
    );
    assert.deepEqual(
      labs.map((l) => [l.lab, l.expired]),
      [
        ['x', false],
        ['y', false],
        ['z', true],
      ],
    );
  });
});
