/**
 * `down --target aws` without a Pulumi CLI or a cloud: a fake Automation API
 * stack (the seam the driver passes in) over the fault-injecting EC2
 * endpoint on 127.0.0.1. Teardown must never report success while the stack
 * cannot be read, is locked by someone alive, or EC2 still lists a resource
 * with the lab's tags.
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { InfraError, UserError } from '../../../../lab/errors.ts';
import type { RunMarker } from '../../../../lab/targets/aws/stack-lock.ts';
import { deploymentController, refuseOtherController } from '../../../../lab/targets/aws/stack-owner.ts';
import {
  type StackTeardownDeps,
  type TeardownStack,
  teardownStack,
} from '../../../../lab/targets/aws/stack-teardown.ts';
import { controllerOf } from '../../../../lab/targets/controller.ts';
import { FAST_BACKOFF, type FakeEc2, type FakeResource, labTags, useFakeEc2 } from './fake-ec2.ts';
import { FakeRunMarkers, OUR_MACHINE, killedRun } from './run-markers.ts';

const LAB = 'night';
const STACK = 'night';
const tags = (lab = LAB, run = STACK) => labTags(lab, run);

const PULUMI_TYPE: Record<FakeResource['kind'], string> = {
  instance: 'aws:ec2/instance:Instance',
  volume: 'aws:ebs/volume:Volume',
  'security-group': 'aws:ec2/securityGroup:SecurityGroup',
  'key-pair': 'aws:ec2/keyPair:KeyPair',
  subnet: 'aws:ec2/subnet:Subnet',
  'route-table': 'aws:ec2/routeTable:RouteTable',
  'internet-gateway': 'aws:ec2/internetGateway:InternetGateway',
  vpc: 'aws:ec2/vpc:Vpc',
};

/**
 * A stack as the Automation API shows it: its state lists the lab's
 * resources; `destroy` deletes them in the fake EC2 (as the AWS provider
 * would), unless a lock is on, and forgets them (except `stuck`).
 */
class FakeStack implements TeardownStack {
  state: {
    type: string;
    id?: string;
    urn: string;
    inputs?: { tags: Record<string, string> };
    outputs?: Record<string, unknown>;
  }[];
  lock: Error | undefined;
  destroyError: Error | undefined;
  stuck = new Set<string>();
  destroys = 0;
  cancels = 0;
  removed: string[] = [];
  readonly workspace = { removeStack: async (name: string) => void this.removed.push(name) };

  constructor(
    private readonly ec2: FakeEc2,
    resources: FakeResource[],
  ) {
    this.state = [
      { type: 'pulumi:pulumi:Stack', urn: `urn:pulumi:${STACK}::layerlab::pulumi:pulumi:Stack::layerlab-${STACK}` },
      { type: 'pulumi:providers:aws', id: 'p', urn: 'urn:pulumi:x::layerlab::pulumi:providers:aws::default' },
      ...resources.map((r) => ({
        type: PULUMI_TYPE[r.kind],
        id: r.id,
        urn: `urn:pulumi:${STACK}::layerlab::${PULUMI_TYPE[r.kind]}::${r.tags.Name}`,
        inputs: { tags: r.tags },
      })),
    ];
  }

  async destroy(opts: { onOutput: (out: string) => void }) {
    this.destroys++;
    if (this.lock) throw this.lock;
    if (this.destroyError) throw this.destroyError;
    for (const r of this.state) if (r.id && !r.type.startsWith('pulumi:')) this.ec2.remove(r.id);
    this.state = this.state.filter((r) => r.type.startsWith('pulumi:') || this.stuck.has(r.id ?? ''));
    opts.onOutput('Destroying (fake)\n');
    return {};
  }
  async cancel() {
    this.cancels++;
    this.lock = undefined;
  }
  async exportStack() {
    return { version: 3, deployment: { resources: structuredClone(this.state) } };
  }
}

function lockError(lines: string): Error {
  const err = new Error(
    `code: 255\n stderr: error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with \`pulumi cancel\`.\n${lines}\n`,
  );
  err.name = 'ConcurrentUpdateError';
  return err;
}

describe('targets/aws/stack-teardown: down destroys, then believes only EC2', () => {
  const aws = useFakeEc2();
  const { fake } = aws;
  let progress: string[];
  const runs = new FakeRunMarkers(STACK);
  const deps = (
    select: StackTeardownDeps['selectStack'],
    over: Partial<StackTeardownDeps> = {},
  ): StackTeardownDeps => ({
    selectStack: select,
    ec2: async () => aws.ec2,
    backend: 's3://layerlab-state',
    region: 'us-east-1',
    backoff: FAST_BACKOFF,
    progress: (m) => progress.push(m),
    output: () => {},
    markers: runs.markers,
    world: OUR_MACHINE,
    ...over,
  });
  beforeEach(() => {
    progress = [];
    runs.current = undefined;
  });

  it('destroys, waits through throttling and eventual consistency until EC2 lists nothing, then removes the stack', async () => {
    const stack = new FakeStack(fake, fake.addLab(tags(), 2));
    const other = fake.addLab(tags('other', 'other'));
    fake.faults = {
      throttle: { DescribeInstances: 2, DescribeVolumes: 1, DescribeVpcs: 3 },
      shuttingDownDescribes: 3,
      lingerDescribes: 2,
    };
    const detail = await teardownStack(
      LAB,
      STACK,
      deps(async () => stack),
    );
    assert.match(detail, /stack night destroyed, verified empty in EC2, and removed/);
    assert.deepEqual(stack.removed, [STACK]);
    assert.equal(fake.live().filter((r) => r.tags['layerlab:lab'] === LAB).length, 0);
    assert.equal(other.filter((r) => fake.live().includes(r)).length, other.length, 'another lab is not touched');
    assert.ok(fake.calls.filter((c) => c.action === 'DescribeInstances').length > 3, 'it had to ask again');
    assert.equal(
      fake.calls.filter((c) => c.status === 503).length,
      6,
      'every throttled call (2 + 1 + 3) was answered RequestLimitExceeded and asked again',
    );
    assert.ok(
      progress.some((m) => /waiting for \d+ resource\(s\) to go/.test(m)),
      progress.join('\n'),
    );
  });

  it('a volume that survives the destroy is named (type, id, tags), exit 3, and the stack is kept', async () => {
    const made = fake.addLab(tags());
    const data = made.find((r) => r.kind === 'volume' && !r.deleteOnTermination) as FakeResource;
    fake.survive(data.id);
    const stack = new FakeStack(fake, made);
    await assert.rejects(
      teardownStack(
        LAB,
        STACK,
        deps(async () => stack, { backoff: { ...FAST_BACKOFF, timeoutMs: 400 } }),
      ),
      (err: InfraError) =>
        err instanceof InfraError &&
        err.exitCode === 3 &&
        err.message.includes(`volume ${data.id} (available) [layerlab:lab=night layerlab:run=night`) &&
        /still exist \d+ s after teardown/.test(err.message),
    );
    assert.deepEqual(stack.removed, [], 'the stack stays, so `down` can be run again');
  });

  it('resources still in the state after destroy are named and fail the teardown', async () => {
    const made = fake.addLab(tags());
    const stack = new FakeStack(fake, made);
    const sg = made.find((r) => r.kind === 'security-group') as FakeResource;
    stack.stuck.add(sg.id);
    await assert.rejects(
      teardownStack(
        LAB,
        STACK,
        deps(async () => stack),
      ),
      (err: Error) =>
        err instanceof InfraError &&
        /still holds 1 resource\(s\)/.test(err.message) &&
        err.message.includes(`aws:ec2/securityGroup:SecurityGroup ${sg.id}`),
    );
    assert.deepEqual(stack.removed, []);
  });

  it('a stack that cannot be read is exit 3 naming the stack and the backend; nothing is destroyed', async () => {
    fake.addLab(tags());
    const expired = new Error(
      'error: failed to load checkpoint: ExpiredToken: The security token included in the request is expired',
    );
    expired.name = 'CommandError';
    await assert.rejects(
      teardownStack(
        LAB,
        STACK,
        deps(async () => {
          throw expired;
        }),
      ),
      (err: Error) =>
        err instanceof InfraError &&
        /cannot read Pulumi stack night \(backend s3:\/\/layerlab-state\): .*ExpiredToken/.test(err.message) &&
        /Nothing was destroyed/.test(err.message) &&
        /pulumi whoami/.test(err.message),
    );
    assert.ok(!fake.calls.some((c) => !c.action.startsWith('Describe')), 'nothing deleted');
  });

  it('"no such stack" means nothing to destroy only when EC2 agrees', async () => {
    const notFound = Object.assign(new Error("no stack named 'night' found"), { name: 'StackNotFoundError' });
    const select = async () => {
      throw notFound;
    };
    assert.match(await teardownStack(LAB, STACK, deps(select)), /nothing to destroy/);
    const left = fake.add('instance', tags());
    await assert.rejects(
      teardownStack(LAB, STACK, deps(select, { backoff: { ...FAST_BACKOFF, timeoutMs: 200 } })),
      (err: Error) => err instanceof InfraError && err.message.includes(`instance ${left.id} (running)`),
    );
  });

  describe('a locked stack', () => {
    const LOCK =
      '  s3://layerlab-state/.pulumi/locks/organization/layerlab/night/0b4b.json: created by ci@ctl (pid 4242) at 2026-12-04T10:00:05Z';
    const ours = () => killedRun(STACK);

    it('left by a dead run of ours: cancelled, then destroyed and verified', async () => {
      const stack = new FakeStack(fake, fake.addLab(tags()));
      stack.lock = lockError(LOCK);
      runs.current = ours();
      await teardownStack(
        LAB,
        STACK,
        deps(async () => stack),
      );
      assert.equal(stack.cancels, 1);
      assert.equal(stack.destroys, 2);
      assert.ok(
        progress.some((m) => /locked by a dead run of ours .*cancelling/.test(m)),
        progress.join('\n'),
      );
      assert.equal(fake.live().length, 0);
    });

    it('held by a live process, or by another machine, or without our record: reported (who, since when), never broken', async () => {
      const cases: [string, Partial<StackTeardownDeps>, RunMarker | undefined, RegExp][] = [
        [
          'lock pid alive',
          { world: { host: 'ctl', user: 'ci', pidAlive: (p) => p === 4242, markerAlive: () => false } },
          ours(),
          /pid 4242\) is still running here/,
        ],
        [
          'our run alive',
          { world: { host: 'ctl', user: 'ci', pidAlive: () => false, markerAlive: () => true } },
          ours(),
          /the layerlab run that took it \(pid 4000.*\) is still running/,
        ],
        ['no record', {}, undefined, /no layerlab run on this machine recorded taking this stack/],
        [
          'other machine',
          { world: { host: 'laptop', user: 'ci', pidAlive: () => false, markerAlive: () => false } },
          { ...ours(), host: 'laptop' },
          /taken by ci@ctl, not by this user on this machine/,
        ],
      ];
      for (const [label, over, m, why] of cases) {
        const stack = new FakeStack(fake, fake.addLab(tags()));
        stack.lock = lockError(LOCK);
        runs.current = m;
        await assert.rejects(
          teardownStack(
            LAB,
            STACK,
            deps(async () => stack, over),
          ),
          (err: Error) =>
            err instanceof InfraError &&
            /is locked by ci@ctl \(pid 4242\) since 2026-12-04T10:00:05Z/.test(err.message) &&
            why.test(err.message) &&
            /pulumi cancel --stack night/.test(err.message),
          label,
        );
        assert.equal(stack.cancels, 0, label);
        assert.ok(fake.live().length > 0, `${label}: nothing destroyed`);
        fake.resources.clear();
      }
    });

    it('Pulumi Cloud says only "409": reported, never cancelled', async () => {
      const stack = new FakeStack(fake, fake.addLab(tags()));
      stack.lock = Object.assign(new Error('[409] Conflict: Another update is currently in progress.'), {
        name: 'ConcurrentUpdateError',
      });
      runs.current = ours();
      await assert.rejects(
        teardownStack(
          LAB,
          STACK,
          deps(async () => stack),
        ),
        (err: Error) => err instanceof InfraError && /does not say who holds the lock/.test(err.message),
      );
      assert.equal(stack.cancels, 0);
    });
  });

  it("a failed destroy is exit 3 with Pulumi's message, and the stack is kept", async () => {
    const stack = new FakeStack(fake, fake.addLab(tags()));
    stack.destroyError = new Error(
      'error: deleting EC2 Instance: operation error EC2: TerminateInstances, UnauthorizedOperation',
    );
    await assert.rejects(
      teardownStack(
        LAB,
        STACK,
        deps(async () => stack),
      ),
      (err: Error) =>
        err instanceof InfraError && /cannot destroy Pulumi stack night .*UnauthorizedOperation/.test(err.message),
    );
    assert.deepEqual(stack.removed, []);
  });

  it("issue 35, N4: another controller's stack is refused (exit 2, naming it) before anything is destroyed", async () => {
    const made = fake.addLab(tags());
    const stack = new FakeStack(fake, made);
    const alice = controllerOf(LAB, 'alice@ctl', '/home/alice/one/.layerlab');
    const bob = controllerOf(LAB, 'bob@ctl', '/home/bob/two/.layerlab');
    const root = stack.state[0] as (typeof stack.state)[number];
    root.outputs = { inventory: { controller: { ...alice, since: '2026-12-01T10:00:00.000Z' } } };
    const refuseOther = (me: typeof alice) => (deployment: unknown) =>
      refuseOtherController(STACK, deploymentController(deployment), me);
    await assert.rejects(
      teardownStack(
        LAB,
        STACK,
        deps(async () => stack, { refuseOther: refuseOther(bob) }),
      ),
      (err: Error) =>
        err instanceof UserError &&
        err.message.includes('in use by lab night of alice@ctl (LAYERLAB_HOME /home/alice/one/.layerlab)') &&
        err.message.includes('since 2026-12-01T10:00:00.000Z') &&
        err.message.includes('layerlab down'),
    );
    assert.equal(stack.destroys, 0, 'nothing was destroyed');
    assert.equal(fake.live().filter((r) => r.tags['layerlab:lab'] === LAB).length, made.length, 'the lab is intact');
    // Its own controller tears it down.
    await teardownStack(
      LAB,
      STACK,
      deps(async () => stack, { refuseOther: refuseOther(alice) }),
    );
    assert.deepEqual(stack.removed, [STACK], 'the holder removes it');
  });
});
