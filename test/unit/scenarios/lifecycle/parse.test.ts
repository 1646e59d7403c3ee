/**
 * lifecycle.tsv as guest.sh writes it with diskUse: false: the four phases'
 * seconds, no disk columns and no start row; refused when a phase is missing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLifecycle } from '../../../../lab/scenarios/lifecycle/parse.ts';

const rows = (lines: string[]) => `phase\tcontainers\tseconds\n${lines.join('\n')}\n`;

describe('parseLifecycle without disk columns (diskUse: false)', () => {
  it('reads each phase as seconds and nothing else', () => {
    const { values, failures } = parseLifecycle(
      rows(['run\t3\t12.5', 'inspect\t3\t1.25', 'stop\t3\t2', 'rm\t3\t0.75']),
    );
    assert.deepEqual(failures, []);
    assert.deepEqual(
      values.map((v) => [v.labels?.phase, v.metric, v.value]),
      [
        ['run', 'seconds', 12.5],
        ['inspect', 'seconds', 1.25],
        ['stop', 'seconds', 2],
        ['rm', 'seconds', 0.75],
      ],
    );
  });

  it('still refuses a missing phase', () => {
    const { failures } = parseLifecycle(rows(['run\t3\t12.5', 'inspect\t3\t1.25', 'stop\t3\t2']));
    assert.ok(failures.includes('lifecycle.tsv has no rm phase'), failures.join('; '));
  });
});
