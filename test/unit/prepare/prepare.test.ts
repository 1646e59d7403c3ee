/**
 * lab/prepare/prepare.ts: the environment folder a host reports is pulled
 * like a trial's, and checked against the MANIFEST guest/env.sh writes: an
 * unchecked folder never lands (issue 12, finding 2). The profile's command
 * carries the target's container network.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { profileCommand } from '../../../lab/prepare/prepare.ts';
import { extractSafely } from '../../../lab/ssh/safe-tar.ts';
import { guestFolder } from '../guest-folder.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-prepare-'));
after(() => rmSync(work, { recursive: true, force: true }));

describe('the environment folder is checked against a MANIFEST (issue 12, finding 2)', () => {
  it('guest/env.sh ends by writing a MANIFEST of its folder', async () => {
    const script = readFileSync(resolve(import.meta.dirname, '..', '..', '..', 'guest', 'env.sh'), 'utf8');
    assert.match(script, /^ll_write_manifest /m, 'env.sh calls ll_write_manifest');
  });

  it('an env pull without a MANIFEST (or not matching it) fails and lands nothing', async () => {
    const prepare: Record<string, unknown> = await import('../../../lab/prepare/prepare.ts');
    const captureEnv = prepare.captureEnv;
    assert.equal(typeof captureEnv, 'function', 'lab/prepare exports captureEnv (the checked env pull)');
    if (typeof captureEnv !== 'function') return;
    const fakeConnection = (files: Record<string, string>, manifest: boolean) => ({
      name: 'xfs',
      pull: async (_command: string, localDir: string) => {
        const dir = manifest ? guestFolder(work, `env-src-${Date.now()}`, files) : join(work, `env-raw-${Date.now()}`);
        if (!manifest) {
          mkdirSync(dir, { recursive: true });
          for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
        }
        const archive = `${dir}.tar`;
        execFileSync('tar', ['-cf', archive, '-C', dir, '.']);
        await extractSafely(createReadStream(archive), localDir);
      },
    });
    const hostDir = join(work, 'run', 'hosts', 'xfs');
    mkdirSync(hostDir, { recursive: true });
    await assert.rejects(
      captureEnv(fakeConnection({ 'summary.json': '{}' }, false), { dataDisk: '/dev/vdb' }, join(hostDir, 'env')),
      /\[host=xfs phase=env\].*no MANIFEST/,
    );
    assert.equal(existsSync(join(hostDir, 'env')), false, 'an unchecked env folder never lands');
    await captureEnv(fakeConnection({ 'summary.json': '{}' }, true), { dataDisk: '/dev/vdb' }, join(hostDir, 'env'));
    assert.deepEqual(readdirSync(join(hostDir, 'env')).sort(), ['MANIFEST', 'summary.json'], 'a checked env lands');
  });
});

describe("the profile's command: the target's container network (issue 39)", () => {
  const host = { profile: 'overlay2-xfs', dataDisk: '/dev/vdb', dedicated: false } as const;
  it("Docker's default bridge on aws only; none on local and static", () => {
    const network = (target: 'local' | 'aws' | 'static') =>
      /(?:^| )LL_CONTAINER_NETWORK='([^']*)' /.exec(profileCommand(target, host))?.[1];
    assert.deepEqual(
      { local: network('local'), aws: network('aws'), static: network('static') },
      { local: 'none', aws: 'default', static: 'none' },
    );
  });

  it('beside the data disk and ownership, running the profile script', () => {
    assert.equal(
      profileCommand('static', host),
      "LL_DATA_DISK='/dev/vdb' LL_DEDICATED='0' LL_CONTAINER_NETWORK='none' 'bash' '/opt/layerlab/guest/profiles/overlay2-xfs.sh'",
    );
  });
});
