import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Journal, type JournalEntry } from '../../../lab/record/journal.ts';

describe('Journal.runOrder', () => {
  it("a trial's position is the line of its last done entry: a resumed run's retry counts where it ran", () => {
    const entries: JournalEntry[] = [
      { trial: 'a', host: 'h', state: 'started' },
      { trial: 'a', host: 'h', state: 'done' },
      { trial: 'b', host: 'h', state: 'started' },
      { trial: 'b', host: 'h', state: 'failed', reason: 'x' },
      { trial: 'c', host: 'h', state: 'started' },
      { trial: 'c', host: 'h', state: 'done' },
      // The resumption retries b after c.
      { trial: 'b', host: 'h', state: 'started' },
      { trial: 'b', host: 'h', state: 'done' },
      // A trial that never finished keeps its last line; a later failure of a done trial does not move it.
      { trial: 'd', host: 'h', state: 'started' },
      { trial: 'a', host: 'h', state: 'failed', reason: 're-parse: x' },
    ];
    const order = Journal.runOrder(entries);
    assert.deepEqual(
      [...order].sort((x, y) => x[1] - y[1]),
      [
        ['a', 1],
        ['c', 5],
        ['b', 7],
        ['d', 8],
      ],
    );
  });
});
