/**
 * Issue 35 N7: a clone makes results/ 0755 and run folders were made with the
 * process umask, though runs hold what untrusted guests sent back. Every run
 * folder is 0700 and the results folder is tightened when it is ours.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createRunDir, isRunId } from '../../../lab/record/layout.ts';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('createRunDir', () => {
  const base = mkdtempSync(join(tmpdir(), 'layerlab-layout-'));
  after(() => rmSync(base, { recursive: true, force: true }));

  it('makes a private run folder inside a private results folder', () => {
    const root = join(base, 'fresh');
    const { runId, dir } = createRunDir(root, 'quick');
    assert.ok(isRunId(runId), runId);
    assert.equal(mode(root), 0o700);
    assert.equal(mode(dir), 0o700);
  });

  it('tightens a results folder of ours that a clone left 0755', () => {
    const root = join(base, 'cloned');
    mkdirSync(root, { mode: 0o755 });
    chmodSync(root, 0o755);
    const { dir } = createRunDir(root, 'quick');
    assert.equal(mode(root), 0o700);
    assert.equal(mode(dir), 0o700);
  });

  it('never reuses a run folder', () => {
    const root = join(base, 'twice');
    const now = new Date('2026-12-04T10:00:00Z');
    const a = createRunDir(root, 'quick', now);
    const b = createRunDir(root, 'quick', now);
    assert.notEqual(a.dir, b.dir);
  });
});
