/**
 * `layerlab down --target aws` and `layerlab sweep --target aws` as a user
 * runs them (bin/layerlab.js in a child process), with a stand-in `pulumi`
 * on PATH (it answers `version` and `stack select` only) and the SDK pointed
 * at the fault-injecting EC2 endpoint on 127.0.0.1 (AWS_ENDPOINT_URL_EC2):
 * exit 0 only when the backend says "no such stack" AND EC2 lists nothing
 * tagged with the lab; every other answer is exit 3 naming what to do.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { labTags as tags, useFakeEc2 } from '../targets/aws/fake-ec2.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const BIN = join(ROOT, 'bin', 'layerlab.js');
const LAB = join(ROOT, 'labs', 'aws-nightly.yaml');
const work = mkdtempSync(join(tmpdir(), 'layerlab-down-aws-'));
const bin = join(work, 'bin');
mkdirSync(bin);
writeFileSync(
  join(bin, 'pulumi'),
  `#!/usr/bin/env bash
set -euo pipefail
case "$1 \${2:-}" in
  "version "*) echo v3.248.0 ;;
  "stack select") printf '%s\\n' "$FAKE_PULUMI_SELECT_ERROR" >&2; exit 255 ;;
  *) echo "fake pulumi: $* is not emulated" >&2; exit 2 ;;
esac
`,
);
chmodSync(join(bin, 'pulumi'), 0o755);

const aws = useFakeEc2();
const { fake } = aws;
after(() => rmSync(work, { recursive: true, force: true }));

/** Runs the CLI without blocking this process (the fake EC2 answers from here). */
function layerlab(args: string[], env: Record<string, string>): Promise<{ status: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: work,
      env: {
        ...process.env,
        PATH: `${bin}:${process.env.PATH}`,
        LAYERLAB_HOME: join(work, 'state'),
        LAYERLAB_SSH_CIDRS: '203.0.113.7/32',
        LAYERLAB_AWS_SETTLE_SECONDS: '2',
        PULUMI_BACKEND_URL: 's3://layerlab-state',
        AWS_ENDPOINT_URL_EC2: aws.endpoint,
        AWS_ACCESS_KEY_ID: 'AKIDFAKE',
        AWS_SECRET_ACCESS_KEY: 'fake',
        AWS_EC2_METADATA_DISABLED: 'true',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('close', (status) => done({ status, stderr }));
  });
}

const NO_STACK = "error: no stack named 'nightly' found";
const down = ['down', '--lab', LAB, '--target', 'aws'];

describe('layerlab down --target aws', { timeout: 300_000 }, () => {
  it('no stack and nothing tagged in EC2: exit 0, "nothing to destroy"', async () => {
    fake.add('instance', tags('someone-else', 'x'));
    const r = await layerlab(down, { FAKE_PULUMI_SELECT_ERROR: NO_STACK });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /nothing to destroy/);
    assert.ok(
      fake.calls.some((c) => c.action === 'DescribeInstances'),
      'EC2 was asked',
    );
  });

  it('no stack but a tagged instance still running: exit 3 naming it', async () => {
    const left = fake.add('instance', tags('nightly', 'nightly'));
    const r = await layerlab(down, { FAKE_PULUMI_SELECT_ERROR: NO_STACK });
    assert.equal(r.status, 3, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(`instance ${left.id} \\(running\\) \\[layerlab:lab=nightly layerlab:run=nightly`),
    );
  });

  it('a backend that cannot be read (expired credentials): exit 3 naming the stack and the backend', async () => {
    const r = await layerlab(down, {
      FAKE_PULUMI_SELECT_ERROR:
        'error: failed to load checkpoint: ExpiredToken: The provided token has expired. status code: 400',
    });
    assert.equal(r.status, 3, r.stderr);
    assert.match(r.stderr, /cannot read Pulumi stack nightly \(backend s3:\/\/layerlab-state\)/);
    assert.match(r.stderr, /ExpiredToken/);
    assert.match(r.stderr, /Nothing was destroyed/);
  });
});

describe('layerlab sweep --target aws (EC2 tags, no Pulumi state)', { timeout: 300_000 }, () => {
  it('deletes the expired lab, keeps the rest, exit 0', async () => {
    const old = fake.addLab(tags('old', 'r1', '2026-01-01T00:00:00.000Z'));
    const kept = [...fake.addLab(tags('fresh', 'r2')), fake.add('volume', { Name: 'not-ours' })];
    fake.faults = { throttle: { DescribeInstances: 1 }, shuttingDownDescribes: 1 };
    // No Pulumi stacks to list: the stand-in knows only `stack select`, so keep it off PATH.
    const r = await layerlab(['sweep', '--target', 'aws', '--region', 'us-east-1'], { PATH: process.env.PATH ?? '' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /deleted lab old run r1/);
    assert.equal(old.filter((x) => fake.live().includes(x)).length, 0);
    assert.equal(kept.filter((x) => fake.live().includes(x)).length, kept.length);
  });
});
