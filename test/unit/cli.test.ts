import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

const BIN = resolve(import.meta.dirname, '..', '..', 'bin', 'layerlab.js');
const work = mkdtempSync(join(tmpdir(), 'layerlab-cli-'));
after(() => rmSync(work, { recursive: true, force: true }));

function layerlab(...args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, LAYERLAB_HOME: join(work, 'state'), LAYERLAB_RESULTS: join(work, 'results') },
  });
}

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
    assert.match(r.stdout, /ok: .*lab quick, 2 host\(s\), 18 trials \(serial\)/);
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
});
