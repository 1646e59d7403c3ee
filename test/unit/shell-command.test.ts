/**
 * The command strings the controller sends over SSH (lab/util/shell.ts):
 * whatever login shell runs them, the program gets each value byte for byte,
 * and nothing in a value is run.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { envCommand } from '../../lab/util/shell.ts';

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
