/**
 * lab/collect/trial-output.ts: what a guest sends back is not trusted (issue
 * 12, finding 10). One malformed guest JSON fails only the trial it belongs
 * to, naming the file, and the report still renders around it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

describe("the guest's phases: read beside the trial, never its failure", () => {
  const trial: Trial = { id: 't1', host: 'xfs', profile: 'overlay2-xfs', scenario: 'fio', mount: 'layer', rep: 1 };
  const fio = readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'fio', 'four-jobs.json'), 'utf8');
  const meta = JSON.stringify({ start: '100.5', end: '103', exit_status: '0' });

  function folder(name: string, phases?: string): string {
    const dir = join(work, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'fio.json'), fio);
    writeFileSync(join(dir, 'meta.json'), meta);
    if (phases !== undefined) writeFileSync(join(dir, 'phases'), phases);
    return dir;
  }

  it('a phases file is parsed into the outcome', () => {
    const outcome = parseTrialOutput(folder('phased', 'setup 100\nscript 100.5\nwork 101\nend 103.5\n'), trial, 'r');
    assert.equal(outcome.ok, true, outcome.failures.join('; '));
    assert.deepEqual(outcome.phases, { phases: { setup: 0.5, script: 0.5, work: 2.5 }, spanSeconds: 3.5 });
  });

  it('a garbled one is a problem to report, and the trial stands with its samples', () => {
    const outcome = parseTrialOutput(folder('garbled', 'rm -rf / 1\n'), trial, 'r');
    assert.equal(outcome.ok, true, outcome.failures.join('; '));
    assert.ok(outcome.samples.length > 0, 'its samples are kept');
    assert.ok(outcome.phases && 'problem' in outcome.phases, JSON.stringify(outcome.phases));
  });

  it('none from a guest before phases', () => {
    assert.equal(parseTrialOutput(folder('unphased'), trial, 'r').phases, undefined);
  });
});
