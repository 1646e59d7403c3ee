/**
 * Today's stacks (issue 18): a host's os release, the profiles each release
 * can run, the engine a scenario's guest script needs, and the apt sources a
 * release's guest image is built from. Bad combinations are refused at
 * validation by name with file:line (UserError: exit 2).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OS_RELEASE_NAMES, PROFILES, PROFILE_NAMES, baseImageOf } from '../../lab/catalog.ts';
import { parseLabDefinition } from '../../lab/definition/load.ts';
import { UserError } from '../../lab/errors.ts';
import { SCENARIOS } from '../../lab/scenarios/index.ts';
import { sourcesForRelease } from '../../lab/targets/local/image/sources.ts';

function lab(hosts: string, scenarios = 'fio: { size: 16M }', mounts = '[layer, volume, bind]'): string {
  return `name: s\nhosts:\n${hosts}scenarios:\n  ${scenarios}\nmounts: ${mounts}\nrepetitions: 1\n`;
}

function errorOf(text: string): string {
  try {
    parseLabDefinition(text, 'labs/s.yaml');
  } catch (err) {
    assert.ok(err instanceof UserError, 'a UserError (exit 2)');
    assert.equal(err.exitCode, 2);
    return err.message;
  }
  assert.fail('expected the definition to be refused');
}

describe('os release of a host', () => {
  it('defaults to debian-12, so every definition from before keeps its meaning', () => {
    const parsed = parseLabDefinition(lab('  - { name: a, profile: overlay2-xfs }\n'), 'labs/s.yaml');
    assert.equal(parsed.hosts[0]?.os, 'debian-12');
  });

  it('accepts the stacks of issue 18 on debian-13', () => {
    const parsed = parseLabDefinition(
      lab(
        [
          '  - { name: d20, profile: overlay2-ext4 }',
          '  - { name: d26, profile: overlay2-ext4, os: debian-13 }',
          '  - { name: ctrd, profile: containerd-ext4, os: debian-13 }',
          '  - { name: pod, profile: podman-overlay-ext4, os: debian-13 }',
          '',
        ].join('\n'),
      ),
      'labs/s.yaml',
    );
    assert.deepEqual(
      parsed.hosts.map((h) => h.os),
      ['debian-12', 'debian-13', 'debian-13', 'debian-13'],
    );
  });

  it('refuses an unknown os by name, with file:line', () => {
    const msg = errorOf(lab('  - name: a\n    profile: overlay2-xfs\n    os: debian-11\n'));
    assert.match(msg, /labs\/s\.yaml:5:9: hosts\[0\]\.os: expected one of debian-12, debian-13; got "debian-11"/);
  });

  it('refuses devicemapper on debian-13 (Engine 25 removed it), with file:line', () => {
    const msg = errorOf(lab('  - name: a\n    profile: devicemapper-lvm\n    os: debian-13\n'));
    assert.match(
      msg,
      /labs\/s\.yaml:5:9: hosts\[0\]\.os: profile devicemapper-lvm \(docker devicemapper\) cannot run on os debian-13 \(runs on debian-12\)/,
    );
  });

  it('refuses the containerd image store and Podman on debian-12 (its engines lack them)', () => {
    const msg = errorOf(
      lab('  - { name: a, profile: containerd-ext4 }\n  - { name: b, profile: podman-overlay-ext4 }\n'),
    );
    assert.match(msg, /:3:\d+: hosts\[0\]\.os: profile containerd-ext4 .* cannot run on os debian-12/);
    assert.match(msg, /:4:\d+: hosts\[1\]\.os: profile podman-overlay-ext4 .* cannot run on os debian-12/);
  });

  it('refuses an os on a flatcar host (it boots Flatcar, not Debian)', () => {
    const text =
      'name: s\ntarget: { kind: aws }\nhosts:\n  - { name: f, profile: flatcar, os: debian-13 }\nscenarios:\n  fio: { size: 16M }\nmounts: [volume]\nrepetitions: 1\n';
    assert.match(errorOf(text), /labs\/s\.yaml:4:\d+: hosts\[0\]\.os: profile flatcar boots Flatcar Container Linux/);
  });

  it('every profile names the releases it runs on, and devicemapper only where Docker still has it', () => {
    for (const name of PROFILE_NAMES) {
      const p = PROFILES[name];
      assert.ok(p.image === 'flatcar' || p.releases.length > 0, `${name} runs on some release`);
      assert.ok(
        p.releases.every((r) => OS_RELEASE_NAMES.includes(r)),
        `${name}: known releases`,
      );
    }
    assert.deepEqual(PROFILES['devicemapper-lvm'].releases, ['debian-12']);
    assert.equal(baseImageOf('overlay2-ext4', 'debian-13'), 'debian-13');
    assert.equal(baseImageOf('flatcar', 'debian-12'), 'flatcar');
  });
});

describe('engine of a host against the scenarios it runs', () => {
  it('refuses a Podman host in a scenario whose guest script needs Docker, by name, with file:line', () => {
    const msg = errorOf(
      lab('  - name: p\n    profile: podman-overlay-ext4\n    os: debian-13\n', 'permissions: {}', '[volume]'),
    );
    assert.match(
      msg,
      /labs\/s\.yaml:4:\d+: hosts\[0\]\.profile: scenario permissions runs on docker only; host p runs podman \(profile podman-overlay-ext4\)/,
    );
  });

  it('accepts a Podman host in fio and lifecycle, the scenarios run on it end to end', () => {
    const parsed = parseLabDefinition(
      lab('  - { name: p, profile: podman-overlay-ext4, os: debian-13 }\n', 'fio: { size: 16M }\n  lifecycle: {}'),
      'labs/s.yaml',
    );
    assert.equal(parsed.hosts[0]?.profile, 'podman-overlay-ext4');
  });

  it('a scenario without engines is Docker-only; the ones that name podman name docker too', () => {
    for (const s of Object.values(SCENARIOS)) {
      const engines: readonly string[] = 'engines' in s && s.engines ? s.engines : ['docker'];
      assert.ok(engines.includes('docker'), `${s.name} runs on docker`);
    }
  });
});

describe('apt sources of a release (same mirror, another suite)', () => {
  it('moves deb822 suites and keeps URIs, keys, components and comments', () => {
    const bookworm = [
      'Types: deb',
      '# http://snapshot.debian.org/archive/debian/20250520T000000Z',
      'URIs: http://deb.debian.org/debian',
      'Suites: bookworm bookworm-updates',
      'Components: main',
      'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg',
      '',
      'Types: deb',
      'URIs: http://deb.debian.org/debian-security',
      'Suites: bookworm-security',
      'Components: main',
    ].join('\n');
    const trixie = sourcesForRelease(bookworm, 'trixie');
    assert.equal(
      trixie,
      bookworm
        .replace('Suites: bookworm bookworm-updates', 'Suites: trixie trixie-updates')
        .replace('Suites: bookworm-security', 'Suites: trixie-security'),
    );
    assert.equal(sourcesForRelease(bookworm, 'bookworm'), bookworm);
  });

  it('moves one-line suites (with options), leaves vendor suites and URIs that merely contain a codename', () => {
    const list = [
      'deb [signed-by=/k.gpg] http://mirror.example/debian bookworm main contrib',
      'deb http://deb.debian.org/debian-security bookworm-security main',
      'deb https://packages.example/apt cloud-sdk-bookworm main',
      'deb https://vendor.example/bookworm nodistro main',
      '# deb http://old.example/debian bookworm main',
    ].join('\n');
    assert.deepEqual(sourcesForRelease(list, 'trixie').split('\n'), [
      'deb [signed-by=/k.gpg] http://mirror.example/debian trixie main contrib',
      'deb http://deb.debian.org/debian-security trixie-security main',
      'deb https://packages.example/apt cloud-sdk-bookworm main',
      'deb https://vendor.example/bookworm nodistro main',
      '# deb http://old.example/debian bookworm main',
    ]);
  });
});
