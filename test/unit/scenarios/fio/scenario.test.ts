/** fio's parameters: container and layout, and what they refuse before anything starts. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fio } from '../../../../lab/scenarios/fio/scenario.ts';

const parse = (p: unknown) => fio.params.safeParse(p);
const messages = (p: unknown) => {
  const r = parse(p);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('fio parameters', () => {
  it("default to the seed's procedure: a fresh container and fio's own file every trial", () => {
    const r = parse({});
    assert.ok(r.success, 'an empty fio block is valid');
    assert.equal(r.data.container, 'fresh');
    assert.equal(r.data.layout, 'per-trial');
    const env = fio.guestEnv(r.data);
    assert.equal(env.LL_P_CONTAINER, 'fresh');
    assert.equal(env.LL_P_LAYOUT, 'per-trial');
  });

  it('take a kept container, and layout once for read-only jobs in a kept container', () => {
    assert.ok(parse({ container: 'kept' }).success, 'kept with all four jobs');
    const r = parse({ container: 'kept', layout: 'once', jobs: ['seqread', 'randread'] });
    assert.ok(r.success, 'once with read jobs');
    assert.equal(fio.guestEnv(r.data).LL_P_LAYOUT, 'once');
  });

  it('refuse layout once with a write job, naming it, and without a kept container', () => {
    assert.deepEqual(messages({ container: 'kept', layout: 'once', jobs: ['seqwrite', 'randread'] }), [
      'layout: layout: once is for read-only jobs; seqwrite would write into a reused file instead of a fresh one, which measures something else',
    ]);
    assert.deepEqual(messages({ layout: 'once', jobs: ['randread'] }), [
      'layout: layout: once needs container: kept (a fresh container has no file to reuse)',
    ]);
    assert.ok(messages({ container: 'reused' }).length === 1, 'an unknown container mode is refused');
  });
});
