/**
 * A host that never answers SSH: `up` (and so `all`, whose `down` then removes
 * the VM's files) says what the VM's console showed last, without a guest's
 * escape sequences, beside where the logs are.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseLabDefinition } from '../../../../lab/definition/load.ts';
import { prepareHosts } from '../../../../lab/phases/prepare.ts';
import { unprepared } from '../../../../lab/targets/driver.ts';
import { localDriver } from '../../../../lab/targets/local/driver.ts';
import type { Inventory } from '../../../../lab/targets/types.ts';
import { tailLines } from '../../../../lab/util/files.ts';
import { freeLoopbackPort } from '../../../../lab/util/ports.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-boot-failure-'));
// This file runs in a process of its own: the lab's state goes to the test's folder.
process.env.LAYERLAB_HOME = join(work, 'state');
after(() => rmSync(work, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for them
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

const lab = parseLabDefinition(
  'name: bootfail\nhosts:\n  - { name: a, profile: overlay2-xfs }\nscenarios:\n  fio: {}\nmounts: [layer]\nrepetitions: 1\n',
  'bootfail.yaml',
);
const hostDir = join(work, 'state', 'labs', 'bootfail', 'hosts', 'a');
mkdirSync(hostDir, { recursive: true });

async function neverAnswering(): Promise<Inventory> {
  const key = join(hostDir, 'id_ed25519');
  writeFileSync(key, 'not a key: the connection never gets that far\n');
  return {
    target: 'local',
    hosts: [
      {
        name: 'a',
        profile: 'overlay2-xfs',
        address: '127.0.0.1',
        // Free a moment ago, nothing listens: every attempt is refused until the deadline.
        port: await freeLoopbackPort(),
        user: 'root',
        privateKeyPath: key,
        hostKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOgcNdv8qVn7SG5n2jOC9LMGkOu2tYAwLf3Gi6ZEgHUl test',
        dataDisk: '/dev/vdb',
        labels: {},
      },
    ],
  };
}

const upFails = async () => {
  const inventory = await neverAnswering();
  return prepareHosts(lab, unprepared(inventory), { ready: [], onHost: [] }, Date.now() + 1500);
};

describe('a host that never answers SSH', () => {
  it("the error quotes the last 25 lines of the VM's console, escapes removed, and names the logs", async () => {
    const boot = Array.from({ length: 40 }, (_, i) => `[ ${i}.000] boot line ${i}`);
    boot.push('\x1b]0;pwned\x07Kernel panic - not syncing: \x1b[31mFatal exception\x1b[0m\r');
    writeFileSync(join(hostDir, 'console.log'), `${boot.join('\r\n')}\r\n`);
    await assert.rejects(upFails(), (err: Error) => {
      assert.match(err.message, /\ba: .*cannot reach SSH at 127\.0\.0\.1:\d+ /, err.message);
      assert.match(err.message, /the last lines of its console:\n {2}\| \[ 16\.000\] boot line 16\n/, err.message);
      assert.doesNotMatch(err.message, /boot line 15\n/, 'only the last 25 lines');
      assert.match(err.message, /\| Kernel panic - not syncing: Fatal exception\n/, err.message);
      assert.doesNotMatch(err.message, CONTROL, 'no escape sequence or carriage return of the guest');
      assert.match(err.message, /\(logs: .*hosts\/<host>\.log and <host>\/console\.log\)/, err.message);
      return true;
    });
  });

  it('says so when the console printed nothing', async () => {
    rmSync(join(hostDir, 'console.log'), { force: true });
    await assert.rejects(upFails(), /cannot reach SSH at .*; its console printed nothing\n/);
  });

  it('reads only the end of a large console log', () => {
    const path = join(work, 'big.log');
    writeFileSync(path, `${'x'.repeat(200_000)}\nsecond to last\nlast\n`);
    assert.equal(tailLines(path, 5, 1024), 'second to last\nlast', 'the cut first line is dropped');
    assert.equal(tailLines(join(work, 'missing.log'), 5), '');
    assert.equal(localDriver.bootFailureDetail?.(lab, 'nohost'), 'its console printed nothing');
  });
});
