/**
 * lab/collect/trial-output.ts: what a guest sends back is not trusted (issue
 * 12, finding 10). One malformed guest JSON fails only the trial it belongs
 * to, naming the file, and the report still renders around it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { analyzeRun } from '../../../lab/analyze/analysis.ts';
import { parseTrialOutput } from '../../../lab/collect/trial-output.ts';
import type { Trial } from '../../../lab/plan/plan.ts';
import { loadRun } from '../../../lab/record/load.ts';
import { buildReport } from '../../../lab/report/build.ts';
import { renderMarkdown } from '../../../lab/report/markdown.ts';
import { writeRun } from '../run-fixture.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-trial-output-'));
after(() => rmSync(work, { recursive: true, force: true }));

describe('finding 10: one malformed guest JSON fails only what it belongs to', () => {
  const trial: Trial = {
    id: 'r1-xfs-fio-layer',
    host: 'xfs',
    profile: 'overlay2-xfs',
    scenario: 'fio',
    mount: 'layer',
    rep: 1,
  };

  it('a torn meta.json fails its trial, naming the file', () => {
    const dir = join(work, 'bad-meta-trial');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'meta.json'), '{"start": "1');
    const outcome = parseTrialOutput(dir, trial, 'r-demo');
    assert.equal(outcome.ok, false, 'the trial failed');
    assert.ok(
      outcome.failures.some((f) => f.startsWith('meta.json: unreadable: ')),
      `the reason names meta.json: ${outcome.failures.join('; ')}`,
    );
  });

  it('a meta.json whose times are not numbers fails its trial instead of throwing', () => {
    const dir = join(work, 'odd-meta-trial');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'meta.json'), '{"start": "x", "end": "soon", "exit_status": "0"}');
    const outcome = parseTrialOutput(dir, trial, 'r-demo');
    assert.equal(outcome.ok, false, 'the trial failed');
    assert.ok(
      outcome.failures.some((f) => f.startsWith('meta.json: end "soon" is not a time')),
      `the reason names the field: ${outcome.failures.join('; ')}`,
    );
  });

  it('the report still renders: the bad trial among failed trials, the bad env summary as unreadable', () => {
    const dir = join(work, 'runs', 'r-demo');
    writeRun(dir);
    writeFileSync(join(dir, 'trials', trial.id, 'meta.json'), '{"start": "1');
    // A control character the guest did not escape (seen with a \x01 in a CPU model).
    writeFileSync(join(dir, 'hosts', 'xfs', 'env', 'summary.json'), '{"kernel": "6.1", "cpu": "Xeon\x01"}');
    const outcome = parseTrialOutput(join(dir, 'trials', trial.id), trial, 'r-demo');
    const run = loadRun(dir, new Map([[trial.id, { host: 'xfs', reason: outcome.failures.join('; ') }]]));
    const md = renderMarkdown(buildReport(run, analyzeRun(run)));
    assert.match(
      md,
      /\| r1-xfs-fio-layer \| xfs \| re-parse: meta\.json: unreadable: /,
      'the trial is listed as failed',
    );
    assert.match(
      md,
      /^\| summary \| unreadable: hosts\/xfs\/env\/summary\.json: .* \| not recorded \|$/m,
      'the env column of xfs says unreadable',
    );
  });
});
