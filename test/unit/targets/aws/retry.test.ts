/**
 * Retrying AWS calls: throttling and "not yet" are waited out with growing
 * pauses, never past the deadline; anything else fails at once as exit 3
 * with AWS's code and request id.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InfraError } from '../../../../lab/errors.ts';
import { backoffDelay, defaultBackoff, deleting, retrying } from '../../../../lab/targets/aws/retry.ts';

function awsError(code: string, requestId = 'req-1'): Error {
  return Object.assign(new Error(`${code} happened`), { name: code, $metadata: { requestId } });
}

/** A clock that only moves when the code under test sleeps. */
function fakeClock() {
  let t = 0;
  const waits: number[] = [];
  return {
    waits,
    now: () => t,
    sleep: async (ms: number) => {
      waits.push(ms);
      t += ms;
    },
  };
}

describe('targets/aws/retry', () => {
  it('waits out throttling and the "not yet" codes it is given, with growing pauses', async () => {
    const clock = fakeClock();
    const answers = [awsError('RequestLimitExceeded'), awsError('Throttling'), awsError('DependencyViolation')];
    const out = await retrying(
      'ec2 DeleteSecurityGroup sg-1',
      async () => {
        const next = answers.shift();
        if (next) throw next;
        return 'done';
      },
      { timeoutMs: 60_000, baseDelayMs: 100, maxDelayMs: 10_000, retryOn: ['DependencyViolation'], ...clock },
    );
    assert.equal(out, 'done');
    assert.equal(clock.waits.length, 3);
    assert.ok((clock.waits[2] ?? 0) > (clock.waits[0] ?? 0), `pauses grow: ${clock.waits.join(', ')}`);
  });

  it('gives up at the deadline, naming the call, the code and the request id', async () => {
    const clock = fakeClock();
    await assert.rejects(
      retrying(
        'ec2 DescribeVolumes',
        async () => {
          throw awsError('RequestLimitExceeded', 'abc-123');
        },
        { timeoutMs: 5_000, baseDelayMs: 100, maxDelayMs: 1_000, ...clock },
      ),
      (err: InfraError) =>
        err instanceof InfraError &&
        err.exitCode === 3 &&
        /ec2 DescribeVolumes: still failing after 5 s of retries/.test(err.message) &&
        /error code RequestLimitExceeded, request id abc-123/.test(err.message),
    );
    assert.equal(
      clock.waits.reduce((a, b) => a + b, 0),
      5_000,
      'never waits past the deadline',
    );
  });

  it('any other error fails at once', async () => {
    let calls = 0;
    await assert.rejects(
      retrying(
        'ec2 TerminateInstances',
        async () => {
          calls++;
          throw awsError('UnauthorizedOperation');
        },
        { timeoutMs: 5_000, baseDelayMs: 1, maxDelayMs: 1 },
      ),
      (err: InfraError) => err instanceof InfraError && err.details.code === 'UnauthorizedOperation',
    );
    assert.equal(calls, 1);
  });

  it('a deletion whose target is already gone is done', async () => {
    await deleting(
      'ec2 DeleteVolume vol-1',
      async () => {
        throw awsError('InvalidVolume.NotFound');
      },
      { timeoutMs: 1, baseDelayMs: 1, maxDelayMs: 1 },
    );
  });

  it('pauses stay within the remaining time; LAYERLAB_AWS_SETTLE_SECONDS sets the deadline', () => {
    const b = { timeoutMs: 1, baseDelayMs: 1_000, maxDelayMs: 30_000 };
    assert.ok(backoffDelay(b, 10, 250) <= 250, 'bounded by what is left');
    assert.ok(backoffDelay(b, 20, 1e9) <= 30_000, 'bounded by maxDelayMs');
    assert.equal(defaultBackoff({ LAYERLAB_AWS_SETTLE_SECONDS: '90' }).timeoutMs, 90_000);
    assert.equal(defaultBackoff({}).timeoutMs, 600_000);
  });
});
