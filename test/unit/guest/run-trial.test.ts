/**
 * guest/run-trial.sh itself, in bash on this machine: started as the
 * controller starts it (bashScriptCommand, under bash and under sh as the
 * login shell), with guest/ copied into a temporary root whose lib.sh points
 * LL_ROOT and LL_STATE there, and a scenario that writes one file.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { parsePhases } from '../../../lab/collect/phases.ts';
import { bashScriptCommand } from '../../../lab/util/shell.ts';

const GUEST = resolve(import.meta.dirname, '..', '..', '..', 'guest');
const root = mkdtempSync(join(tmpdir(), 'layerlab-run-trial-'));
after(() => rmSync(root, { recursive: true, force: true }));

const state = join(root, 'state');
const out = join(state, 'work', 'trials', 'current');
cpSync(join(GUEST, 'run-trial.sh'), join(root, 'guest', 'run-trial.sh'));
cpSync(join(GUEST, 'lib.sh'), join(root, 'guest', 'lib.sh'));
appendFileSync(
  join(root, 'guest', 'lib.sh'),
  `\nLL_ROOT=${JSON.stringify(root)}; LL_STATE=${JSON.stringify(state)}; LL_WORK="$LL_STATE/work"; LL_TRIAL_PIDFILE="$LL_WORK/trial.pid"\n`,
);
mkdirSync(join(root, 'lab', 'scenarios', 'one-file'), { recursive: true });
writeFileSync(join(root, 'lab', 'scenarios', 'one-file', 'guest.sh'), 'printf "%s" "$LL_TRIAL" > "$LL_OUT/out.txt"\n');
// A scenario that marks its phases as the real ones do (lib.sh sourced, ll_phase at its boundaries).
mkdirSync(join(root, 'lab', 'scenarios', 'phased'), { recursive: true });
writeFileSync(
  join(root, 'lab', 'scenarios', 'phased', 'guest.sh'),
  'source "$(dirname "$0")/../../../guest/lib.sh"\nll_phase mount\nll_phase work\nprintf x > "$LL_OUT/out.txt"\nll_phase cleanup\n',
);
// What env.sh does first in every run: the folders, made and checked.
mkdirSync(join(state, 'work'), { recursive: true, mode: 0o700 });

/** Runs a trial through `shell -c` as the SSH server would; returns the exit status and the tar's member names. */
function trial(shell: string, id: string, scenario = 'one-file') {
  const command = bashScriptCommand(
    { LL_OUT: out, LL_SCENARIO: scenario, LL_TRIAL: id, LL_MOUNT: 'layer', LL_REP: '1' },
    join(root, 'guest', 'run-trial.sh'),
  );
  const r = spawnSync(shell, ['-c', command]);
  const members = spawnSync('tar', ['-tf', '-'], { input: r.stdout, encoding: 'utf8' }).stdout.trim().split('\n');
  const extracted = mkdtempSync(join(root, 'pulled-'));
  spawnSync('tar', ['-xf', '-', '-C', extracted], { input: r.stdout });
  return { code: r.status, stderr: r.stderr.toString(), members: members.sort(), extracted };
}

describe('guest/run-trial.sh', () => {
  for (const shell of ['bash', 'sh']) {
    it(`${shell} as the login shell: one tar of the trial's files; the folder stays, empty, and the pidfile says it ended`, () => {
      const r = trial(shell, `t-${shell}`);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(r.members, ['MANIFEST', 'guest.stderr', 'guest.stdout', 'meta.json', 'out.txt', 'phases']);
      assert.equal(
        readFileSync(join(r.extracted, 'out.txt'), 'utf8'),
        `t-${shell}`,
        'the scenario saw its environment',
      );
      const meta = JSON.parse(readFileSync(join(r.extracted, 'meta.json'), 'utf8'));
      assert.equal(meta.trial, `t-${shell}`);
      assert.equal(meta.exit_status, '0');
      assert.deepEqual(readdirSync(out), [], 'the output folder is kept, empty');
      assert.equal(
        readFileSync(join(state, 'work', 'trial.pid'), 'utf8'),
        '',
        'an empty pidfile: the attempt ran to its end',
      );
    });
  }

  it("phases: run-trial.sh's own marks around the scenario's, monotonic, ending in end, covered by the MANIFEST", () => {
    const r = trial('bash', 't-phased', 'phased');
    assert.equal(r.code, 0, r.stderr);
    const text = readFileSync(join(r.extracted, 'phases'), 'utf8');
    const names = text
      .trim()
      .split('\n')
      .map((line) => line.split(' ')[0]);
    assert.deepEqual(names, ['setup', 'script', 'mount', 'work', 'cleanup', 'finish', 'end']);
    const parsed = parsePhases(text);
    assert.ok('phases' in parsed, `the controller takes them: ${JSON.stringify(parsed)}`);
    const meta = JSON.parse(readFileSync(join(r.extracted, 'meta.json'), 'utf8'));
    assert.ok(
      parsed.spanSeconds >= Number(meta.end) - Number(meta.start),
      'the marks span the scenario script (meta.json start to end)',
    );
    assert.match(
      readFileSync(join(r.extracted, 'MANIFEST'), 'utf8'),
      / phases\n/,
      'the MANIFEST lists the phases file',
    );
    assert.deepEqual(readdirSync(out), [], 'nothing left for the next trial');
  });

  it('a trial folder made ready for the setup mark: an empty one is kept, not made anew', () => {
    // The setup mark is written after the check for leftovers: were it first, every trial would remake the folder.
    const before = statSync(out).ino;
    const r = trial('bash', 't-kept');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(statSync(out).ino, before, 'the same folder (no rm and mkdir on every trial)');
  });

  it('a folder with something left in it (an attempt that did not end) is made anew: nothing old is sent', () => {
    writeFileSync(join(out, 'fio.json'), 'from an attempt that was cut off');
    const r = trial('bash', 't-after');
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!r.members.includes('fio.json'), r.members.join(' '));
    assert.ok(!existsSync(join(out, 'fio.json')), 'the leftover is gone from the host');
  });
});
