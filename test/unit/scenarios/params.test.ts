/**
 * sizeParam: a size is written as text ("64M") or a number of bytes, is kept
 * as text, and a value of another type or out of range is refused naming
 * both forms and the range.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sizeParam } from '../../../lab/scenarios/params.ts';

const size = sizeParam(1024, 1024 ** 3);

describe('sizeParam', () => {
  it('takes "64M", "4k" and a whole number of bytes, keeping text', () => {
    assert.equal(size.parse('64M'), '64M');
    assert.equal(size.parse('4k'), '4k');
    assert.equal(size.parse(1048576), '1048576');
  });

  it('refuses another type, an unknown unit and a size out of range, naming the forms and the range', () => {
    for (const bad of [true, '16Q', '2G', 100]) {
      const r = size.safeParse(bad);
      assert.equal(r.success, false, `${JSON.stringify(bad)} is refused`);
      assert.match(r.error?.issues[0]?.message ?? '', /expected a size like "64M", "4k" or a number of bytes, from 1/);
    }
  });
});
