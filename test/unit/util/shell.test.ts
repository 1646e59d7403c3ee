/**
 * The command strings the controller sends over SSH (lab/util/shell.ts):
 * whatever login shell runs them, the program gets each value byte for byte,
 * and nothing in a value is run.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { bashScriptCommand, envCommand } from '../../../lab/util/shell.ts';

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

describe('bashScriptCommand', () => {
  for (const shell of ['sh', 'bash']) {
    it(`${shell} -c: the script gets each value unchanged and finds itself; its exit status is the command's`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'layerlab-script-'));
      try {
        writeFileSync(
          join(dir, 'script.sh'),
          'printf "%s|%s|%s|%s" "$LL_A" "${BASH_SOURCE[0]##*/}" "$(bash -c \'printf %s "$LL_A"\')" "${0##*/}"\nexit 3\n',
        );
        const r = spawnSync(shell, ['-c', bashScriptCommand({ LL_A: HOSTILE }, join(dir, 'script.sh'))], {
          encoding: 'utf8',
        });
        assert.equal(r.status, 3, r.stderr);
        // Under bash the login shell sources it ($0 stays the shell's); under sh, bash starts it.
        const runner = shell === 'bash' ? 'bash' : 'script.sh';
        assert.equal(r.stdout, `${HOSTILE}|script.sh|${HOSTILE}|${runner}`, 'exported to what the script starts too');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('refuses a name that is not an environment variable’s', () => {
    assert.throws(() => bashScriptCommand({ 'A;id': 'x' }, '/x'), /invalid environment variable name/);
  });
});
