/**
 * Issue 35, finding N4: the lock a static machine holds itself
 * (guest/host-lock.sh through lab/targets/static/host-lock.ts), run in bash
 * against a fake machine's /var/lib/layerlab (test/unit/fake-session.ts).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { controllerOf } from '../../../../lab/targets/controller.ts';
import {
  hostLockProblem,
  lockBody,
  parseHolder,
  releaseHostLock,
  takeHostLock,
} from '../../../../lab/targets/static/host-lock.ts';
import type { InventoryHost } from '../../../../lab/targets/types.ts';
import { HostLog } from '../../../../lab/util/log.ts';
import { FakeStaticMachines } from '../../fake-session.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-host-lock-'));
/** The fake machines never write to it; connect takes one. */
const log = new HostLog(join(work, 'unused.log'));
after(async () => {
  await log.close();
  rmSync(work, { recursive: true, force: true });
});

let n = 0;
function machine() {
  const machines = new FakeStaticMachines(join(work, `m-${++n}`));
  const host: InventoryHost = {
    name: 'box',
    profile: 'overlay2-ext4',
    address: '192.0.2.7',
    port: 22,
    user: 'root',
    privateKeyPath: '/nonexistent',
    hostKey: 'ssh-ed25519 AAAA',
    dataDisk: '/dev/vdb',
    labels: {},
  };
  const lock = join(machines.stateDir('box'), 'host.lock');
  const open = () => machines.connect(host, log, Date.now() + 1000);
  return { machines, host, lock, open };
}

const alice = controllerOf('quick', 'alice@ctl', '/home/alice/one/.layerlab');
/** A LAYERLAB_HOME with what a shell would expand or split on. */
const bob = controllerOf('quick', 'bob@ctl', "/home/bob/it's $(touch pwned) `x` ; two/.layerlab");

describe('finding N4: guest/host-lock.sh', () => {
  it('check is read-only: it creates nothing on a machine', async () => {
    const m = machine();
    const conn = await m.open();
    assert.equal(await hostLockProblem(conn, m.host, alice), undefined, 'a free machine has no problem');
    assert.equal(existsSync(m.machines.stateDir('box')), false, 'no /var/lib/layerlab was made');
  });

  it('the lock is written whole, values kept as they are (no shell expansion), and names the holder to others', async () => {
    const m = machine();
    const conn = await m.open();
    assert.equal(await takeHostLock(conn, m.host, bob), 'taken', 'taken');
    const text = readFileSync(m.lock, 'utf8');
    assert.equal(parseHolder(text).home, bob.home, 'the LAYERLAB_HOME is kept literally');
    assert.equal(parseHolder(text).id, bob.id, 'the id is written');
    assert.equal(existsSync(join(work, `m-${n}`, 'pwned')), false, 'nothing in the value ran');
    assert.equal(existsSync('pwned'), false, 'nothing in the value ran');
    assert.equal(await takeHostLock(conn, m.host, bob), 'ours', 'the same controller re-enters');
    const problem = await hostLockProblem(conn, m.host, alice);
    assert.ok(problem?.includes(`in use by lab quick of bob@ctl (LAYERLAB_HOME ${bob.home})`), `names bob: ${problem}`);
    assert.match(problem ?? '', /since \d{4}-/, 'and since when');
    await assert.rejects(takeHostLock(conn, m.host, alice), /in use by lab quick of bob@ctl/, 'alice cannot take it');
    await assert.rejects(releaseHostLock(conn, m.host, alice), /in use by/, 'nor release it');
    assert.equal(readFileSync(m.lock, 'utf8'), text, 'the lock is unchanged');
    await releaseHostLock(conn, m.host, bob);
    assert.equal(existsSync(m.lock), false, 'its holder releases it');
  });

  it('two controllers taking one machine at once: exactly one gets it', async () => {
    const m = machine();
    const [a, b] = await Promise.all([m.open(), m.open()]);
    const results = await Promise.allSettled([takeHostLock(a, m.host, alice), takeHostLock(b, m.host, bob)]);
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected'], 'one wins, one is refused');
    const winner = parseHolder(readFileSync(m.lock, 'utf8')).id;
    assert.ok(winner === alice.id || winner === bob.id, 'the lock names the winner');
  });

  it('a lock file layerlab did not write is never removed, and a control character in a holder is not printed', async () => {
    const m = machine();
    const conn = await m.open();
    mkdirSync(m.machines.stateDir('box'), { recursive: true, mode: 0o700 });
    writeFileSync(m.lock, 'not ours\n');
    await assert.rejects(takeHostLock(conn, m.host, alice), /layerlab did not write it/, 'take refuses');
    await assert.rejects(releaseHostLock(conn, m.host, alice), /layerlab did not write it/, 'release refuses');
    assert.equal(readFileSync(m.lock, 'utf8'), 'not ours\n', 'left alone');
    writeFileSync(m.lock, `${lockBody({ ...bob, who: 'evil\x1b[2J@x' })}\n`);
    const problem = (await hostLockProblem(conn, m.host, alice)) ?? '';
    assert.equal(problem.includes('\x1b'), false, `no escape reaches the terminal: ${JSON.stringify(problem)}`);
    assert.match(problem, /of evil@x/, 'the rest of the name is shown');
  });
});
