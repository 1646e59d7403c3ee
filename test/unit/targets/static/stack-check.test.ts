/**
 * The static target's check of a machine's release and engine against its
 * profile (lab/targets/static/stack-check.ts): the facts script run by the
 * local bash against fake os-release/engine commands, and the verdicts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  HOST_FACTS_SCRIPT,
  type HostFacts,
  parseHostFacts,
  stackProblems,
} from '../../../../lab/targets/static/stack-check.ts';

const DEBIAN12: HostFacts = {
  id: 'debian',
  versionId: '12',
  pretty: 'Debian GNU/Linux 12 (bookworm)',
  docker: '20.10.24+dfsg1',
  podman: '',
};
const DEBIAN13: HostFacts = {
  id: 'debian',
  versionId: '13',
  pretty: 'Debian GNU/Linux 13 (trixie)',
  docker: '26.1.5+dfsg1',
  podman: '5.4.2',
};

describe('static target: release and engine against the profile', () => {
  it('passes a machine that fits: Debian 12 for devicemapper, Debian 13 for the containerd image store and podman', () => {
    assert.deepEqual(stackProblems(DEBIAN12, 'devicemapper-lvm', 'debian-12'), []);
    assert.deepEqual(stackProblems(DEBIAN13, 'overlay2-ext4', 'debian-13'), []);
    assert.deepEqual(stackProblems(DEBIAN13, 'containerd-ext4', 'debian-13'), []);
    assert.deepEqual(stackProblems(DEBIAN13, 'podman-overlay-ext4', 'debian-13'), []);
  });

  it('refuses a Debian machine of another release than the lab says, naming both', () => {
    const [problem] = stackProblems(DEBIAN13, 'overlay2-ext4', 'debian-12');
    assert.match(
      String(problem),
      /the lab says os debian-12 \(bookworm\); the machine runs Debian GNU\/Linux 13 \(trixie\)/,
    );
  });

  it('refuses devicemapper on Docker 25 or later and the containerd image store before 24, whatever the OS', () => {
    const ubuntu = { ...DEBIAN13, id: 'ubuntu', versionId: '24.04', pretty: 'Ubuntu 24.04 LTS' };
    assert.match(
      String(stackProblems(ubuntu, 'devicemapper-lvm', 'debian-12')[0]),
      /profile devicemapper-lvm \(devicemapper\) needs docker < 25; the machine has docker 26\.1\.5\+dfsg1/,
    );
    assert.match(
      String(stackProblems(DEBIAN12, 'containerd-ext4', 'debian-12')[0]),
      /needs docker >= 24; the machine has docker 20\.10/,
    );
  });

  it('refuses a profile whose engine the machine lacks', () => {
    assert.match(
      String(stackProblems(DEBIAN12, 'podman-overlay-ext4', 'debian-12')[0]),
      /profile podman-overlay-ext4 needs podman; the machine has no podman command/,
    );
  });

  it('refuses the flatcar profile on anything but Flatcar', () => {
    assert.match(String(stackProblems(DEBIAN12, 'flatcar', 'debian-12')[0]), /needs Flatcar Container Linux/);
    const flatcar = { ...DEBIAN12, id: 'flatcar', versionId: '4152.2.0', pretty: 'Flatcar Container Linux' };
    assert.deepEqual(stackProblems(flatcar, 'flatcar', 'debian-12'), []);
  });
});

describe('the facts script (run by bash here, against fake commands)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'layerlab-stacks-static-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  // The only real tools on the script's PATH: so no docker or podman of this machine answers.
  for (const tool of ['bash', 'head']) {
    const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
    assert.ok(found, `${tool} is installed`);
    symlinkSync(found, join(dir, tool));
  }

  function facts(commands: Record<string, string>): HostFacts {
    for (const [name, out] of Object.entries(commands)) {
      writeFileSync(join(dir, name), `#!/bin/sh\necho '${out}'\n`);
      chmodSync(join(dir, name), 0o755);
    }
    // PATH holds only the fakes and the few tools the script needs (no real docker or podman).
    const result = spawnSync(join(dir, 'bash'), ['-s'], {
      input: HOST_FACTS_SCRIPT,
      encoding: 'utf8',
      env: { PATH: dir, HOME: dir },
    });
    assert.equal(result.status, 0, result.stderr);
    return parseHostFacts(result.stdout);
  }

  it('reads the engine versions the CLIs print, and nothing for a CLI that is absent', () => {
    const got = facts({ docker: '26.1.5+dfsg1' });
    assert.equal(got.docker, '26.1.5+dfsg1');
    assert.equal(got.podman, '');
    // /etc/os-release is this machine's: whatever it is, the keys are read.
    assert.equal(typeof got.id, 'string');
  });
});
