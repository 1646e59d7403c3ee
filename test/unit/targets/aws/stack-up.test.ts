/**
 * `up --target aws` and a stack left locked: the same judgement as `down`
 * (stack-lock.ts runUnderLock), over a fake Automation API stack whose
 * errors are the Automation API's own (createCommandError on the stderr the
 * Pulumi CLI prints). No Pulumi CLI, no cloud.
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import * as automation from '@pulumi/pulumi/automation/index.js';
import { InfraError } from '../../../../lab/errors.ts';
import type { RunMarker } from '../../../../lab/targets/aws/stack-lock.ts';
import { type StackUpDeps, type UpStack, upStack } from '../../../../lab/targets/aws/stack-up.ts';
import { FakeRunMarkers, OUR_MACHINE, killedRun } from './run-markers.ts';

const STACK = 'night';
const LOCK_LINE =
  '  s3://layerlab-state/.pulumi/locks/organization/layerlab/night/0b4b.json: created by ci@ctl (pid 4242) at 2026-12-04T10:00:05Z';

/** The Automation API's own error factory: exported at run time, left out of its type declarations. */
const internal = automation as unknown as {
  CommandResult: new (stdout: string, stderr: string, code: number) => unknown;
  createCommandError(result: unknown): Error;
};

/** What the Automation API throws when the Pulumi CLI exits with `stderr`. */
function cliError(stderr: string): Error {
  return internal.createCommandError(new internal.CommandResult('', stderr, 255));
}

const locked = () =>
  cliError(
    'error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`.\n' +
      `${LOCK_LINE}\n`,
  );

class FakeStack implements UpStack<{ outputs: Record<string, unknown> }> {
  lock: Error | undefined;
  upError: Error | undefined;
  ups = 0;
  cancels = 0;
  async up(opts: { onOutput: (out: string) => void }) {
    this.ups++;
    if (this.lock) throw this.lock;
    if (this.upError) throw this.upError;
    opts.onOutput('Updating (fake)\n');
    return { outputs: { inventory: { value: 'x' } } };
  }
  async cancel() {
    this.cancels++;
    this.lock = undefined;
  }
}

describe('targets/aws/stack-up: up takes the stack as down does', () => {
  const runs = new FakeRunMarkers(STACK);
  let progress: string[];
  const deps = (over: Partial<StackUpDeps> = {}): StackUpDeps => ({
    backend: 's3://layerlab-state',
    progress: (m) => progress.push(m),
    output: () => {},
    markers: runs.markers,
    world: OUR_MACHINE,
    now: () => Date.parse('2026-12-04T12:05:05Z'),
    ...over,
  });
  beforeEach(() => {
    runs.current = undefined;
    progress = [];
  });

  it('an unlocked stack: one update, and the run record is gone afterwards', async () => {
    const stack = new FakeStack();
    const result = await upStack(STACK, stack, deps());
    assert.deepEqual(result.outputs, { inventory: { value: 'x' } });
    assert.equal(stack.ups, 1);
    assert.equal(runs.current, undefined, 'no record left to mistake for a killed run');
  });

  it('a lock left by a killed run of ours is cancelled, then the update runs', async () => {
    const stack = new FakeStack();
    stack.lock = locked();
    runs.current = killedRun(STACK);
    await upStack(STACK, stack, deps());
    assert.equal(stack.cancels, 1);
    assert.equal(stack.ups, 2);
    assert.ok(
      progress.some((m) => /stack night is locked by a dead run of ours .*pid 4000.*cancelling/.test(m)),
      progress.join('\n'),
    );
    assert.equal(runs.current, undefined);
  });

  it('a lock held by a live run, or not proven ours: exit 3 naming the lock, its age and the commands; never cancelled', async () => {
    const cases: [string, Partial<StackUpDeps>, RunMarker | undefined, RegExp][] = [
      [
        'our killed run, but the lock’s pulumi still runs',
        { world: { host: 'ctl', user: 'ci', pidAlive: (p) => p === 4242, markerAlive: (m) => m.pid === 1 } },
        killedRun(STACK),
        /its process \(pid 4242\) is still running here/,
      ],
      [
        'the run that took it is alive',
        { world: { host: 'ctl', user: 'ci', pidAlive: () => false, markerAlive: () => true } },
        killedRun(STACK),
        /the layerlab run that took it \(pid 4000.*\) is still running/,
      ],
      ['no record of ours, however old the lock', {}, undefined, /no layerlab run on this machine recorded/],
    ];
    for (const [label, over, m, why] of cases) {
      const stack = new FakeStack();
      stack.lock = locked();
      runs.current = m;
      await assert.rejects(
        upStack(STACK, stack, deps(over)),
        (err: Error) =>
          err instanceof InfraError &&
          err.exitCode === 3 &&
          /Pulumi stack night \(backend s3:\/\/layerlab-state\) is locked by ci@ctl \(pid 4242\) since 2026-12-04T10:00:05Z \(2 h ago\)/.test(
            err.message,
          ) &&
          why.test(err.message) &&
          err.message.includes('`pulumi cancel --stack night` and then the same `layerlab` command'),
        label,
      );
      assert.equal(stack.cancels, 0, label);
      assert.equal(stack.ups, 1, label);
    }
  });

  it('a failed update is exit 3 with the AWS error code, not mistaken for a lock', async () => {
    const stack = new FakeStack();
    stack.upError = cliError(
      'error: creating EC2 Instance: operation error EC2: RunInstances, https response error StatusCode: 403, RequestID: 5f3c-11, api error UnauthorizedOperation: You are not authorized\n',
    );
    runs.current = killedRun(STACK);
    await assert.rejects(
      upStack(STACK, stack, deps()),
      (err: Error) =>
        err instanceof InfraError &&
        /^pulumi up of stack night: pulumi failed \(exit 255\)/.test(err.message) &&
        /error code UnauthorizedOperation, request id 5f3c-11/.test(err.message),
    );
    assert.equal(stack.cancels, 0);
  });
});
