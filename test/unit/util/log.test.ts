import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { HostLog } from '../../../lab/util/log.ts';

const dir = mkdtempSync(join(tmpdir(), 'layerlab-log-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('host log', () => {
  // The soak found this: ssh2 reported a connection's close after `up` had
  // closed the host's log, and the write-after-end error killed the controller.
  it('drops lines that arrive after close instead of throwing', async () => {
    const log = new HostLog(join(dir, 'a.log'));
    log.line('before');
    const uncaught: unknown[] = [];
    const onError = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onError);
    try {
      // While the stream is still ending, as in `up`: close, then the late event.
      const closing = log.close();
      log.line('ssh connection closed');
      log.output('out', 'late output\n');
      await closing;
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off('uncaughtException', onError);
    }
    assert.deepEqual(uncaught, []);
    assert.match(readFileSync(join(dir, 'a.log'), 'utf8'), /before\n$/);
  });
});
