import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

const BIN = resolve(import.meta.dirname, '..', '..', 'bin', 'layerlab.js');
const work = mkdtempSync(join(tmpdir(), 'layerlab-cli-'));
after(() => rmSync(work, { recursive: true, force: true }));

function layerlab(...args: string[]) {
  return layerlabWith({}, ...args);
}

function layerlabWith(env: Record<string, string>, ...args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, LAYERLAB_HOME: join(work, 'state'), LAYERLAB_RESULTS: join(work, 'results'), ...env },
  });
}

const QUICK = resolve(import.meta.dirname, '..', '..', 'labs', 'quick.yaml');

const BAD: Record<string, string> = {
  malformed: 'name: [x\n',
  unknownKey:
    'name: x\nhosts: [{name: a, profile: overlay2-xfs, speed: 9}]\nscenarios: {fio: {}}\nmounts: [layer]\nrepetitions: 1\n',
  wrongType:
    'name: x\nhosts: [{name: a, profile: overlay2-xfs}]\nscenarios: {fio: {}}\nmounts: [layer]\nrepetitions: many\n',
  unknownProfile: 'name: x\nhosts: [{name: a, profile: zfs}]\nscenarios: {fio: {}}\nmounts: [layer]\nrepetitions: 1\n',
  unknownScenario:
    'name: x\nhosts: [{name: a, profile: overlay2-xfs}]\nscenarios: {bonnie: {}}\nmounts: [layer]\nrepetitions: 1\n',
  unknownMount:
    'name: x\nhosts: [{name: a, profile: overlay2-xfs}]\nscenarios: {fio: {}}\nmounts: [tmpfs]\nrepetitions: 1\n',
  duplicateHost:
    'name: x\nhosts: [{name: a, profile: overlay2-xfs}, {name: a, profile: overlay2-xfs}]\nscenarios: {fio: {}}\nmounts: [layer]\nrepetitions: 1\n',
  tooLarge:
    'name: x\nhosts: [{name: a, profile: overlay2-xfs, diskGiB: 1}]\nscenarios: {fio: {size: 2G}}\nmounts: [layer]\nrepetitions: 1\n',
  shellName:
    "name: x\nhosts: [{name: 'a`reboot`', profile: overlay2-xfs}]\nscenarios: {fio: {}}\nmounts: [layer]\nrepetitions: 1\n",
};

describe('CLI', () => {
  it('validate accepts labs/quick.yaml', () => {
    const r = layerlab('validate', resolve(import.meta.dirname, '..', '..', 'labs', 'quick.yaml'));
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /ok: .*lab quick, 2 host\(s\), 30 trials \(serial\)/);
    assert.match(r.stdout, /expected time: \d+ min on a 2-core machine without KVM .*with KVM between \d+ min/);
  });

  it('validate gives a short expected time in seconds, not "0 min"', () => {
    const file = join(work, 'short.yaml');
    writeFileSync(
      file,
      'name: short\nhosts: [{name: a, profile: overlay2-xfs}]\nscenarios: {fio: {runtime: 1, ramp: 0, jobs: [seqwrite]}}\nmounts: [layer]\nrepetitions: 1\n',
    );
    const r = layerlab('validate', file);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /expected time: \d+ s on a 2-core machine without KVM .*with KVM between 1 s/);
  });

  it('every ready lab in labs/ validates', () => {
    const dir = resolve(import.meta.dirname, '..', '..', 'labs');
    const labs = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
    assert.ok(labs.length >= 2, `labs found: ${labs.join(', ')}`);
    for (const file of labs) {
      const r = layerlab('validate', join(dir, file));
      assert.equal(r.status, 0, `${file}: ${r.stderr}`);
    }
  });

  for (const [kind, text] of Object.entries(BAD)) {
    it(`refuses a bad definition (${kind}) with exit 2, naming the file, and starts nothing`, () => {
      const file = join(work, `${kind}.yaml`);
      writeFileSync(file, text);
      for (const cmd of [
        ['validate', file],
        ['up', '--lab', file],
        ['all', '--lab', file],
      ]) {
        const r = layerlab(...cmd);
        assert.equal(r.status, 2, `${cmd.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, new RegExp(`${kind}\\.yaml(:\\d+:\\d+)?: `));
      }
      assert.ok(!existsSync(join(work, 'state')), 'no lab state was created');
      assert.ok(!existsSync(join(work, 'results')), 'no results folder was created');
    });
  }

  it('--version and -V print the version of package.json and exit 0', () => {
    const { version } = JSON.parse(readFileSync(resolve(import.meta.dirname, '..', '..', 'package.json'), 'utf8'));
    for (const flag of ['--version', '-V']) {
      const r = layerlab(flag);
      assert.equal(r.status, 0, `${flag}: ${r.stderr}`);
      assert.equal(r.stdout, `${version}\n`, flag);
    }
  });

  it('a missing lab file is exit 2', () => {
    const r = layerlab('validate', join(work, 'nope.yaml'));
    assert.equal(r.status, 2);
    assert.match(r.stderr, /cannot read lab definition .*nope\.yaml: no such file/);
  });

  it('parse prints samples of a real fio run as NDJSON', () => {
    const r = layerlab('parse', 'fio', resolve(import.meta.dirname, '..', 'fixtures', 'fio', 'four-jobs.json'));
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines.length, 20);
    assert.deepEqual(Object.keys(lines[0]), ['scenario', 'metric', 'value', 'unit', 'job', 'direction']);
  });

  it('parse exits 1 and names failed jobs', () => {
    const r = layerlab(
      'parse',
      'fio',
      resolve(import.meta.dirname, '..', 'fixtures', 'fio', 'enospc-errors-before-json.json'),
    );
    assert.equal(r.status, 1);
    assert.match(r.stderr, /failed: fio job seqwrite failed with error 28 \(ENOSPC\)/);
  });

  it('parse of an unknown scenario is exit 2', () => {
    const r = layerlab('parse', 'bonnie', 'x');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /unknown scenario "bonnie"; expected one of fio/);
  });

  it('usage errors are exit 2', () => {
    assert.equal(layerlab('frobnicate').status, 2);
    assert.equal(layerlab('up').status, 2);
  });

  it('target aws without the Pulumi CLI: says what to install, exit 2, nothing created', () => {
    // A PATH with node's own folder only: certainly no `pulumi` on it.
    const path = resolve(process.execPath, '..');
    for (const cmd of [
      ['up', '--target', 'aws', '--lab', QUICK, '--ssh-cidr', '203.0.113.7/32'],
      ['all', '--target', 'aws', '--lab', QUICK, '--ssh-cidr', '203.0.113.7/32'],
      ['run', '--target', 'aws', '--lab', QUICK, '--stack', 'nightly'],
      ['down', '--target', 'aws', '--lab', QUICK],
    ]) {
      const r = layerlabWith({ PATH: path }, ...cmd);
      assert.equal(r.status, 2, `${cmd.join(' ')}: ${r.stderr}`);
      assert.match(
        r.stderr,
        /needs the Pulumi CLI \(`pulumi` on PATH\), which is not installed here; nothing was created/,
      );
      assert.match(r.stderr, /get\.pulumi\.com/);
    }
    assert.ok(!existsSync(join(work, 'state')), 'no lab state was created');
    assert.ok(!existsSync(join(work, 'results')), 'no results folder was created');
  });

  it('static target: an unreadable key and a host that does not answer are refused before anything starts', () => {
    // A directory where the key should be: unreadable as a file for root and users alike.
    const key = join(work, 'unreadable_key');
    mkdirSync(key);
    const inventory = join(work, 'hosts.yaml');
    const hostKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB4k0vdGxxbXVtbXl0ZXN0a2V5Zm9yaW52ZW50b3J5';
    writeFileSync(
      inventory,
      `hosts:
  - { name: xfs, profile: overlay2-xfs, address: 127.0.0.1, port: 1, key: unreadable_key, hostKey: "${hostKey}", dataDisk: /dev/vdb }
  - { name: dm, profile: devicemapper-lvm, address: 127.0.0.1, port: 1, key: missing_key, hostKey: "${hostKey}", dataDisk: /dev/vdc }
`,
    );
    const r = layerlab('up', '--lab', QUICK, '--inventory', inventory);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /hosts\.yaml: 2 problem\(s\), nothing started/);
    assert.match(r.stderr, /host dm: cannot read key .*missing_key: ENOENT/);
    assert.match(r.stderr, /host xfs: cannot read key .*unreadable_key: EISDIR/);
    rmSync(key, { recursive: true });
    writeFileSync(key, '-----BEGIN OPENSSH PRIVATE KEY-----\n', { mode: 0o600 });
    writeFileSync(join(work, 'missing_key'), '-----BEGIN OPENSSH PRIVATE KEY-----\n', { mode: 0o600 });
    const silent = layerlab('run', '--lab', QUICK, '--inventory', inventory);
    assert.equal(silent.status, 2, silent.stderr);
    assert.match(silent.stderr, /host xfs: no SSH answer from 127\.0\.0\.1:1 within 10 s/);
    const badInventory = join(work, 'bad-hosts.yaml');
    writeFileSync(
      badInventory,
      'hosts:\n  - { name: xfs, profile: overlay2-xfs, address: "a;b", key: k, hostKey: x, dataDisk: vdb }\n',
    );
    const bad = layerlab('up', '--lab', QUICK, '--inventory', badInventory);
    assert.equal(bad.status, 2, bad.stderr);
    assert.match(bad.stderr, /bad-hosts\.yaml:2:\d+: hosts\[0\]\.address: expected a host name or IP address/);
    assert.match(bad.stderr, /hosts\[0\]\.dataDisk: expected a block device path under \/dev/);
    assert.ok(!existsSync(join(work, 'state')), 'no lab state was created');
    assert.ok(!existsSync(join(work, 'results')), 'no results folder was created');
  });
});

describe('every command’s --help ends with an example (issue 37 item 5)', () => {
  it('each command and subcommand, as `layerlab <command> --help` prints it', async () => {
    const { buildProgram } = await import('../../lab/cli.ts');
    type Cmd = ReturnType<typeof buildProgram>;
    const missing: string[] = [];
    let checked = 0;
    const walk = (command: Cmd, path: string[]) => {
      for (const sub of command.commands as Cmd[]) {
        const name = [...path, sub.name()].join(' ');
        let help = '';
        const add = (s: string) => {
          help += s;
        };
        sub.configureOutput({ writeOut: add, writeErr: add });
        sub.outputHelp();
        checked++;
        const examples = help.slice(help.search(/\nExamples?:\n/) + 1);
        if (!/^Examples?:\n/.test(examples) || !examples.includes(`\n  layerlab ${name} `)) missing.push(name);
        walk(sub, [...path, sub.name()]);
      }
    };
    walk(buildProgram(), []);
    assert.ok(checked >= 15, `every command walked: ${checked}`);
    assert.deepEqual(missing, [], 'commands whose --help has no "Example:" running that command');
  });
});
