/**
 * The first Ctrl-C says what happens next: `all` and `selftest` tear the lab
 * down, `run` leaves it up (it did not bring it up).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { installInterruptHandler } from '../../../lab/commands/interrupt.ts';
import { parseLabDefinition } from '../../../lab/definition/load.ts';

const lab = parseLabDefinition(
  'name: ctrlc\nhosts:\n  - { name: a, profile: overlay2-xfs }\nscenarios:\n  fio: {}\nmounts: [layer]\nrepetitions: 1\n',
  'ctrlc.yaml',
);

/** What the first SIGINT prints, and whether it asked the run to stop; the handlers are removed after. */
function firstInterrupt(then?: 'tear down' | 'keep the lab'): { said: string; aborted: boolean } {
  const before = process.listeners('SIGINT');
  const write = process.stderr.write.bind(process.stderr);
  let said = '';
  process.stderr.write = ((chunk: string) => {
    said += chunk;
    return true;
  }) as typeof process.stderr.write;
  try {
    const controller = installInterruptHandler({ lab, file: 'ctrlc.yaml', targetOptions: {} }, then);
    process.emit('SIGINT', 'SIGINT');
    return { said, aborted: controller.signal.aborted };
  } finally {
    process.stderr.write = write;
    for (const sig of ['SIGINT', 'SIGTERM'] as const)
      for (const l of process.listeners(sig)) if (!before.includes(l)) process.off(sig, l);
  }
}

describe('installInterruptHandler', () => {
  it('all: stops after the current step and tears down', () => {
    const { said, aborted } = firstInterrupt();
    assert.ok(aborted, 'the run is asked to stop');
    assert.match(said, /SIGINT: stopping after the current step; tearing down \(press Ctrl-C again/);
  });

  it('run: stops after the current step and says the lab stays up', () => {
    const { said, aborted } = firstInterrupt('keep the lab');
    assert.ok(aborted, 'the run is asked to stop');
    assert.match(said, /stopping after the current step; lab ctrlc stays up \(press Ctrl-C again/);
    assert.doesNotMatch(said, /tearing down/);
  });
});
