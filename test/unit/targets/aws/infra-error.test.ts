import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { EC2ServiceException } from '@aws-sdk/client-ec2';
import { InfraError, LabError, UserError } from '../../../../lab/errors.ts';
import { waitForHostKey } from '../../../../lab/targets/aws/console-host-key.ts';
import { asInfraError, awsDetailsInText } from '../../../../lab/targets/aws/infra-error.ts';

// The Automation API's own error factory and result type: the exact objects `stack.up()` rejects with.
const require = createRequire(import.meta.url);
const { createCommandError } = require('@pulumi/pulumi/automation/errors.js') as {
  createCommandError(result: unknown): Error;
};
const { CommandResult } = require('@pulumi/pulumi/automation/cmd.js') as {
  CommandResult: new (stdout: string, stderr: string, code: number) => unknown;
};

const ROOT = resolve(import.meta.dirname, '..', '..', '..', '..');
const work = mkdtempSync(join(tmpdir(), 'layerlab-infra-error-'));
after(() => rmSync(work, { recursive: true, force: true }));

function sdkError(name: string, requestId: string, message: string): EC2ServiceException {
  return new EC2ServiceException({ name, $fault: 'client', $metadata: { httpStatusCode: 403, requestId }, message });
}

/** What terraform-provider-aws prints when a call fails, as Pulumi passes it on. */
const PROVIDER_ERROR =
  'error: creating EC2 Instance: operation error EC2: RunInstances, https response error StatusCode: 403, RequestID: 0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9, api error UnauthorizedOperation: You are not authorized to perform this operation.';

describe('asInfraError: AWS and Pulumi failures are exit 3 with their code and request id', () => {
  it('an AWS SDK error becomes an InfraError naming what failed, the error code and the request id', () => {
    const cause = sdkError('UnauthorizedOperation', 'a1b2c3d4-0000-1111-2222-333344445555', 'You are not authorized');
    const err = asInfraError(cause, 'pulumi up of stack nightly-1');
    assert.ok(err instanceof InfraError, `an InfraError, got ${String(err)}`);
    assert.equal(err.exitCode, 3);
    assert.equal(err.details.code, 'UnauthorizedOperation');
    assert.equal(err.details.requestId, 'a1b2c3d4-0000-1111-2222-333344445555');
    assert.match(
      err.message,
      /^pulumi up of stack nightly-1: AWS said You are not authorized \(error code UnauthorizedOperation, request id a1b2c3d4-0000-1111-2222-333344445555\)$/,
    );
    assert.equal(err.cause, cause);
  });

  it("a Pulumi command error becomes an InfraError with the provider's error line, AWS code and request id", () => {
    const cause = createCommandError(new CommandResult('Updating (nightly-1)\n', `${PROVIDER_ERROR}\n`, 255));
    const err = asInfraError(cause, 'pulumi up of stack nightly-1');
    assert.ok(err instanceof InfraError, `an InfraError, got ${String(err)}`);
    assert.equal(err.details.code, 'UnauthorizedOperation');
    assert.equal(err.details.requestId, '0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9');
    assert.match(
      err.message,
      /^pulumi up of stack nightly-1: pulumi failed \(exit 255\): error: creating EC2 Instance: /,
    );
    assert.doesNotMatch(err.message, /Updating \(nightly-1\)/, 'progress output is left out');
  });

  it('a locked stack says how to release the lock', () => {
    const cause = createCommandError(
      new CommandResult(
        '',
        'error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file',
        255,
      ),
    );
    const err = asInfraError(cause, 'pulumi up of stack nightly-1');
    assert.ok(err instanceof InfraError, `an InfraError, got ${String(err)}`);
    assert.equal(err.details.code, 'ConcurrentUpdateError');
    assert.match(err.message, /pulumi cancel/);
  });

  it('network failures on our side are infrastructure too', () => {
    const cause = Object.assign(new Error('getaddrinfo ENOTFOUND ec2.eu-central-1.amazonaws.com'), {
      code: 'ENOTFOUND',
    });
    const err = asInfraError(cause, 'reading a console');
    assert.ok(err instanceof InfraError, `an InfraError, got ${String(err)}`);
    assert.equal(err.details.code, 'ENOTFOUND');
  });

  it('bad input, a failed benchmark and bugs are left as they are', () => {
    for (const err of [new UserError('bad lab'), new LabError('trial failed'), new TypeError('x is undefined')]) {
      assert.equal(asInfraError(err, 'anything'), err);
    }
  });

  it('reads the code and request id out of provider text', () => {
    assert.deepEqual(awsDetailsInText(PROVIDER_ERROR), {
      code: 'UnauthorizedOperation',
      requestId: '0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9',
    });
    assert.deepEqual(awsDetailsInText('error: no such file'), {});
  });

  it('a console read that AWS refuses stops at once as an InfraError with the request id', async () => {
    await assert.rejects(
      waitForHostKey({
        host: 'h0',
        instanceId: 'i-0abc',
        read: async () => {
          throw sdkError('UnauthorizedOperation', 'req-42', 'You are not authorized to perform this operation.');
        },
        timeoutMs: 60_000,
        pollMs: 10_000,
        sleep: async () => {},
      }),
      (err: Error) =>
        err instanceof InfraError &&
        /host h0: cannot read the serial console of i-0abc: .*ec2:GetConsoleOutput \(error code UnauthorizedOperation, request id req-42\)/.test(
          err.message,
        ),
    );
  });
});

describe('exit codes through the CLI (aws target, a stand-in `pulumi` on PATH)', () => {
  // A pulumi that answers `version` and fails everything else the way a self-managed
  // S3 backend fails with expired credentials. Nothing leaves this machine.
  const bin = join(work, 'bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'pulumi'),
    `#!/bin/sh
if [ "$1" = version ]; then echo v3.248.0; exit 0; fi
echo "error: failed to load checkpoint: operation error S3: ListObjectsV2, https response error StatusCode: 400, RequestID: 7B4C2D9E1F0A3B5C, HostID: aGVsbG8=, api error ExpiredToken: The provided token has expired." >&2
exit 255
`,
  );
  chmodSync(join(bin, 'pulumi'), 0o755);

  function layerlab(...args: string[]) {
    return spawnSync(process.execPath, [join(ROOT, 'bin', 'layerlab.js'), ...args], {
      cwd: work,
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        ...process.env,
        PATH: `${bin}:${process.env.PATH ?? ''}`,
        LAYERLAB_HOME: join(work, 'state'),
        LAYERLAB_RESULTS: join(work, 'results'),
        LAYERLAB_SSH_CIDRS: '',
      },
    });
  }
  const LAB = join(ROOT, 'labs', 'aws-nightly.yaml');

  it('a Pulumi backend failure is exit 3 with the AWS error code and request id', () => {
    const r = layerlab('run', '--lab', LAB, '--stack', 'nightly-1');
    assert.equal(r.status, 3, r.stderr);
    assert.match(
      r.stderr,
      /layerlab: pulumi: selecting stack nightly-1: pulumi failed: error: failed to load checkpoint/,
    );
    assert.match(r.stderr, /\(error code ExpiredToken, request id 7B4C2D9E1F0A3B5C\)\n$/);
  });

  it('bad input stays exit 2, before pulumi runs', () => {
    for (const cidr of ['0.0.0.0/0', '::ffff:0:0/96']) {
      const r = layerlab('up', '--lab', LAB, '--ssh-cidr', cidr);
      assert.equal(r.status, 2, `${cidr}: ${r.stderr}`);
      assert.match(r.stderr, /--ssh-cidr: layerlab:sshCidrs contains/);
    }
    const missing = layerlab('up', '--lab', join(work, 'nope.yaml'), '--target', 'aws');
    assert.equal(missing.status, 2, missing.stderr);
  });
});
