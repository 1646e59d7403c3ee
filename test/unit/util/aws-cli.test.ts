/**
 * lab/util/aws-cli: a CLI v1 first in line (a pyenv shim on PATH, as on the
 * machines here) is passed over for a v2 further on; none at all is undefined.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { findAwsCliV2 } from '../../../lab/util/aws-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'layerlab-aws-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A fake `aws` printing `version` as `aws --version` does. */
function fakeAws(name: string, version: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\necho '${version}'\n`);
  chmodSync(path, 0o755);
  return path;
}

describe('findAwsCliV2', () => {
  const v1 = fakeAws('aws-v1', 'aws-cli/1.45.11 Python/3.11.7 Linux/6.1 botocore/1.43.11');
  const v2 = fakeAws('aws-v2', 'aws-cli/2.9.19 Python/3.11.2 Linux/6.1 source/x86_64.debian.12 prompt/off');
  const broken = join(dir, 'aws-broken');
  writeFileSync(broken, 'not a program');
  chmodSync(broken, 0o755);

  it('passes over a v1, a missing and a broken one for the v2 after them', () => {
    assert.equal(findAwsCliV2([v1, join(dir, 'absent'), broken, v2]), v2);
  });

  it('only a v1: undefined, so the doctor installs Debian awscli', () => {
    assert.equal(findAwsCliV2([v1]), undefined);
  });
});
