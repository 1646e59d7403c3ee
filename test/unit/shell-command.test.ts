/**
 * The command strings the controller sends over SSH (lab/util/shell.ts):
 * whatever login shell runs them, the program gets each value byte for byte,
 * and nothing in a value is run.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { SCRIPT_ON_STDIN, envCommand } from '../../lab/util/shell.ts';

const HOSTILE = `it's $HOME and \`id\` "quoted"; rm -rf /nothing\nsecond line \\ end`;

describe('envCommand', () => {
  for (const shell of ['sh', 'bash']) {
    it(`${shell} -c: the program sees each value unchanged, in its environment only`, () => {
      const command = envCommand({ LL_A: HOSTILE, LL_B: '' }, [
        'bash',
        '-c',
        'printf "%s|%s|%s" "$LL_A" "${LL_B-unset}" "$1"',
        'x',
        HOSTILE,
      ]);
      const r = spawnSync(shell, ['-c', `${command}; printf '|after:%s' "\${LL_A-unset}"`], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, `${HOSTILE}||${HOSTILE}|after:unset`);
    });
  }

  it('refuses a name that is not an environment variable’s', () => {
    assert.throws(() => envCommand({ 'A;id': 'x' }, ['true']), /invalid environment variable name/);
    assert.throws(() => envCommand({ lower: 'x' }, ['true']), /invalid environment variable name/);
  });
});

describe('SCRIPT_ON_STDIN', () => {
  const script = `set -euo pipefail\nprintf '%s|' "$LL_A"\nread_rest=$(wc -c)\nprintf '%s|' "$read_rest"\nfalse\necho not-reached\n`;
  const command = envCommand({ LL_A: HOSTILE }, SCRIPT_ON_STDIN);

  it('runs a script sent through a pipe, read whole (nothing left for its commands), and stops where it fails', () => {
    const r = spawnSync('bash', ['-c', `printf '%s' "$1" | ${command}`, 'x', script], { encoding: 'utf8' });
    assert.equal(r.status, 1, 'false under set -e ends it with its status');
    assert.equal(r.stdout, `${HOSTILE}|0|`, 'the whole script was read before it ran');
  });

  it('does the same when stdin is a socket (read by cat first)', () => {
    // node gives a child's stdin as a socket pair: the other branch.
    const r = spawnSync('sh', ['-c', command], { input: script, encoding: 'utf8' });
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stdout, `${HOSTILE}|0|`);
  });
});
