/**
 * Issue 35, finding N4: the lab lock lived under $LAYERLAB_HOME, so two
 * checkouts (or two users) could drive one static machine at once. The lock
 * is now on the machine itself (guest/host-lock.sh): the static driver is run
 * here against fake machines (test/unit/fake-session.ts) whose lock script is
 * the real one, by two controllers that differ only in LAYERLAB_HOME.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { parseLabDefinition } from '../../../../lab/definition/load.ts';
import { UserError } from '../../../../lab/errors.ts';
import { controllerOf } from '../../../../lab/targets/controller.ts';
import { staticDriverWith } from '../../../../lab/targets/static/driver.ts';
import { lockBody } from '../../../../lab/targets/static/host-lock.ts';
import { FakeStaticMachines } from '../../fake-session.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-static-driver-'));
after(() => rmSync(work, { recursive: true, force: true }));

const LAB_YAML = `name: shared
seed: 1
target:
  kind: static
hosts:
  - name: box
    profile: overlay2-ext4
scenarios:
  fio:
    size: 32M
    runtime: 2
    jobs: [seqwrite]
mounts: [volume]
repetitions: 1
`;

const savedHome = process.env.LAYERLAB_HOME;
let machines: FakeStaticMachines;
let inventoryFile: string;
let n = 0;

beforeEach(() => {
  const dir = join(work, `case-${++n}`);
  machines = new FakeStaticMachines(join(dir, 'machines'));
  inventoryFile = join(work, `inventory-${n}.yaml`);
  writeFileSync(
    inventoryFile,
    'hosts:\n  - name: box\n    profile: overlay2-ext4\n    address: 127.0.0.1\n    key: id_ed25519\n    hostKey: ssh-ed25519 AAAA\n    dataDisk: /dev/vdb\n',
  );
});
afterEach(() => {
  if (savedHome === undefined) Reflect.deleteProperty(process.env, 'LAYERLAB_HOME');
  else process.env.LAYERLAB_HOME = savedHome;
});

const lab = parseLabDefinition(LAB_YAML, 'shared.yaml');

/** A controller: this process with LAYERLAB_HOME set to `home` while it works. */
function controller(home: string) {
  const driver = staticDriverWith(machines.connect);
  const opts = () => ({ inventoryFile });
  const as = <T>(fn: () => Promise<T>) => {
    process.env.LAYERLAB_HOME = join(work, home);
    return fn();
  };
  return {
    up: () => as(() => driver.provision(lab, 'shared.yaml', opts(), undefined as never)),
    run: () => as(() => driver.attach(lab, opts())),
    down: () => as(() => driver.down(lab, opts(), () => {})),
  };
}

function lockText(): string {
  return readFileSync(join(machines.stateDir('box'), 'host.lock'), 'utf8');
}

describe('finding N4: the lock of a static machine is on the machine', () => {
  it('up takes a lock on the machine naming the controller, its LAYERLAB_HOME, pid and time', async () => {
    await controller('home-a').up();
    const lock = lockText();
    assert.match(lock, /^lab=shared$/m, 'the lock names the lab');
    assert.match(lock, new RegExp(`^home=${join(work, 'home-a')}$`, 'm'), 'the lock names the LAYERLAB_HOME');
    assert.match(lock, /^who=[^@\n]+@[^\n]+$/m, 'the lock names user@host');
    assert.match(lock, new RegExp(`^pid=${process.pid}$`, 'm'), 'the lock names the pid');
    assert.match(lock, /^since=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/m, 'the lock says since when (ISO)');
  });

  it('a second controller (another LAYERLAB_HOME) is refused by up, run and down, naming the first', async () => {
    const a = controller('home-a');
    const b = controller('home-b');
    await a.up();
    const before = lockText();
    const since = /^since=(.*)$/m.exec(before)?.[1] ?? '?';
    for (const step of [b.up, b.run]) {
      await assert.rejects(step(), (err: Error) => {
        assert.ok(err instanceof UserError, `a refusal is bad input (exit 2), not ${err.name}`);
        assert.match(err.message, /host box \(127\.0\.0\.1:22\) is in use by lab shared/, 'names the host and lab');
        assert.ok(err.message.includes(join(work, 'home-a')), `names the holder's LAYERLAB_HOME: ${err.message}`);
        assert.ok(err.message.includes(`since ${since}`), `says since when: ${err.message}`);
        assert.match(err.message, /layerlab down/, 'says what to do');
        return true;
      });
    }
    const eventsBefore = machines.events.length;
    const [report] = await b.down();
    assert.equal(report?.removed, false, 'the second controller does not tear down the first one’s lab');
    assert.match(report?.detail ?? '', /in use by lab shared/, 'its down names the holder');
    const downEvents = machines.events.slice(eventsBefore).join('\n');
    assert.doesNotMatch(downEvents, /cleanup\.sh|push/, 'nothing is pushed or cleaned by the second controller');
    assert.equal(lockText(), before, 'the first controller’s lock is untouched');
  });

  it('the same controller comes back to its own lab (up, up, run) and down releases the lock', async () => {
    const a = controller('home-a');
    await a.up();
    const first = lockText();
    await a.up();
    await a.run();
    assert.equal(lockText(), first, 're-entering keeps the lock as it was');
    const reports = await a.down();
    assert.deepEqual(
      reports.map((r) => r.removed),
      [true],
      `down succeeds: ${reports.map((r) => r.detail).join('; ')}`,
    );
    assert.match(machines.events.join('\n'), /box exec cleanup\.sh/, 'down cleaned the machine');
    assert.equal(existsSync(join(machines.stateDir('box'), 'host.lock')), false, 'down released the lock');
    // Now another controller may have the machine.
    await controller('home-b').up();
    assert.ok(lockText().includes(join(work, 'home-b')), 'the second controller took the freed machine');
  });

  it('a file at the lock path that layerlab did not write refuses up and down, and stays', async () => {
    const a = controller('home-a');
    await a.up();
    await a.down();
    const foreign = 'someone else was here\n';
    mkdirSync(machines.stateDir('box'), { recursive: true, mode: 0o700 });
    writeFileSync(join(machines.stateDir('box'), 'host.lock'), foreign);
    await assert.rejects(a.up(), /layerlab did not write it/, 'up is refused');
    const [report] = await a.down();
    assert.equal(report?.removed, false, 'down is refused too');
    assert.equal(lockText(), foreign, 'the file is left alone');
  });

  it('a machine taken by another controller between the check and the lock: the locks just taken are given back', async () => {
    const two = parseLabDefinition(
      LAB_YAML.replace(
        '  - name: box\n    profile: overlay2-ext4\n',
        '  - name: box\n    profile: overlay2-ext4\n  - name: cube\n    profile: overlay2-ext4\n',
      ),
      'shared.yaml',
    );
    writeFileSync(
      inventoryFile,
      ['box', 'cube']
        .map(
          (h) =>
            `  - name: ${h}\n    profile: overlay2-ext4\n    address: 127.0.0.1\n    key: k\n    hostKey: ssh-ed25519 AAAA\n    dataDisk: /dev/vdb\n`,
        )
        .join('')
        .replace(/^/, 'hosts:\n'),
    );
    const other = `${lockBody(controllerOf('shared', 'bob@elsewhere', '/home/bob/.layerlab'))}\n`;
    machines.beforeLock = (host, action) => {
      if (host !== 'cube' || action !== 'take') return;
      mkdirSync(machines.stateDir('cube'), { recursive: true, mode: 0o700 });
      writeFileSync(join(machines.stateDir('cube'), 'host.lock'), other);
    };
    process.env.LAYERLAB_HOME = join(work, 'home-a');
    const driver = staticDriverWith(machines.connect);
    await assert.rejects(driver.provision(two, 'shared.yaml', { inventoryFile }, undefined as never), (err: Error) => {
      assert.ok(err instanceof UserError, `exit 2, not ${err.name}`);
      assert.match(err.message, /host cube .*in use by lab shared of bob@elsewhere/, 'names the holder');
      return true;
    });
    assert.equal(existsSync(join(machines.stateDir('box'), 'host.lock')), false, 'the lock taken on box is given back');
    assert.equal(readFileSync(join(machines.stateDir('cube'), 'host.lock'), 'utf8'), other, "bob's lock stays");
  });
});
