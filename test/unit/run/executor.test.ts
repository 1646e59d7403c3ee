/** Only the controller's own ENOSPC stops a run; the guest's is a failed trial. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { it } from 'node:test';
import { LabError } from '../../../lab/errors.ts';
import { isDiskFull } from '../../../lab/run/executor.ts';

it('a local ENOSPC is disk full; "No space left" from a guest is not', () => {
  let local: unknown;
  try {
    writeFileSync('/dev/full', 'x'); // always ENOSPC
  } catch (err) {
    local = err;
  }
  assert.equal(isDiskFull(local), true, 'a real ENOSPC from the local filesystem');
  const guest = new LabError('command failed (exit 2): bash run-trial.sh\n    tar: fio.dat: No space left on device', {
    host: 'xfs',
  });
  assert.equal(isDiskFull(guest), false, 'guest stderr quoted in a message');
  assert.equal(isDiskFull(new Error('fio job seqwrite failed with error 28 (ENOSPC)')), false, "fio's own ENOSPC");
  assert.equal(isDiskFull(undefined), false, 'no error');
});
