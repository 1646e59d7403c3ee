/** Issue 12, finding 13: hostile or empty YAML is bad input (exit 2, naming the file), never a crash. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

const BIN = resolve(import.meta.dirname, '..', '..', '..', 'bin', 'layerlab.js');
const work = mkdtempSync(join(tmpdir(), 'layerlab-badinput-'));
after(() => rmSync(work, { recursive: true, force: true }));

function validate(name: string, text: string) {
  const file = join(work, name);
  writeFileSync(file, text);
  return spawnSync(process.execPath, [BIN, 'validate', file], {
    cwd: work,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, LAYERLAB_HOME: join(work, 'state'), LAYERLAB_RESULTS: join(work, 'results') },
  });
}

/** "Billion laughs": each level repeats the one before nine times. */
const ALIAS_BOMB = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
  .concat(
    'bcdefg'.split('').map((level, i) => {
      const prev = 'abcdefg'[i];
      return `${level}: &${level} [${Array(9).fill(`*${prev}`).join(',')}]`;
    }),
  )
  .join('\n');

describe('finding 13: YAML that is not a lab definition', () => {
  it('an alias bomb: exit 2, the message names the file and a line', () => {
    const r = validate('bomb.yaml', `${ALIAS_BOMB}\n`);
    assert.equal(r.status, 2, `exit 2 (bad input), got ${r.status}: ${r.stderr}`);
    assert.match(r.stderr, /bomb\.yaml:\d+:\d+: malformed YAML: .*alias/i);
  });

  it('an empty file says so and points at an example', () => {
    const r = validate('empty.yaml', '');
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /empty\.yaml: the file is empty; expected a lab definition \(see labs\/quick\.yaml\)/);
    assert.doesNotMatch(r.stderr, /null null/, 'no "expected object, got null null"');
  });

  it('a file of comments only is empty too', () => {
    const r = validate('comments.yaml', '# nothing here yet\n');
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /comments\.yaml: the file is empty/);
  });
});
