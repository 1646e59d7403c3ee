/**
 * The aws driver without the Pulumi CLI (as on every development machine
 * here): each path that would start `pulumi` stops with the message that
 * says what to install, exit 2, before anything is created or read.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseLabDefinition } from '../../../../lab/definition/load.ts';
import { UserError } from '../../../../lab/errors.ts';
import { awsDriver } from '../../../../lab/targets/aws/driver.ts';
import type { ProvisionHooks } from '../../../../lab/targets/driver.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..', '..');
const LAB_FILE = join(ROOT, 'labs', 'aws-nightly.yaml');
const lab = parseLabDefinition(readFileSync(LAB_FILE, 'utf8'), LAB_FILE);

function noPulumi(err: unknown): boolean {
  return (
    err instanceof UserError &&
    err.exitCode === 2 &&
    /needs the Pulumi CLI \(`pulumi` on PATH\), which is not installed here; nothing was created/.test(err.message) &&
    /get\.pulumi\.com/.test(err.message)
  );
}

describe('targets/aws/driver without the Pulumi CLI', () => {
  const saved = { PATH: process.env.PATH, HOME: process.env.LAYERLAB_HOME };
  const empty = mkdtempSync(join(tmpdir(), 'layerlab-no-pulumi-'));
  before(() => {
    process.env.PATH = empty;
    process.env.LAYERLAB_HOME = join(empty, 'state');
  });
  after(() => {
    process.env.PATH = saved.PATH;
    if (saved.HOME === undefined) Reflect.deleteProperty(process.env, 'LAYERLAB_HOME');
    else process.env.LAYERLAB_HOME = saved.HOME;
    rmSync(empty, { recursive: true, force: true });
  });

  it('preflight, provision, attach --stack and down each say what to install', async () => {
    const progress: string[] = [];
    const hooks = { progress: (m: string) => progress.push(m) } as unknown as ProvisionHooks;
    await assert.rejects(awsDriver.preflight(lab, { sshCidrs: ['203.0.113.7/32'] }), noPulumi, 'preflight');
    await assert.rejects(awsDriver.provision(lab, LAB_FILE, {}, hooks), noPulumi, 'provision');
    await assert.rejects(awsDriver.attach(lab, { stack: 'nightly' }), noPulumi, 'attach --stack');
    await assert.rejects(
      awsDriver.down(lab, {}, (m) => progress.push(m)),
      noPulumi,
      'down',
    );
    assert.deepEqual(progress, [], 'nothing started');
  });
});
