/** bench/blockstats.ts: one drive's mean milliseconds per request from QMP's query-blockstats. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { driveIo } from '../../../bench/blockstats.ts';

/** Shaped as QEMU 7.2 answers query-blockstats (fields trimmed), for the root, data and seed drives. */
const answer = [
  { device: 'root', qdev: '/machine/peripheral-anon/device[0]/virtio-backend', stats: { rd_operations: 10 } },
  {
    device: 'data',
    qdev: '/machine/peripheral-anon/device[1]/virtio-backend',
    stats: {
      rd_bytes: 33554432,
      wr_bytes: 67108864,
      rd_operations: 400,
      wr_operations: 200,
      rd_total_time_ns: 600_000_000,
      wr_total_time_ns: 1_000_000_000,
      failed_rd_operations: 1,
      failed_wr_operations: 2,
      flush_operations: 3,
    },
  },
  { device: 'seed', stats: {} },
];

describe('driveIo', () => {
  it('the data drive: 600 ms over 400 reads is 1.5 ms each, 1 s over 200 writes 5 ms, 3 failed', () => {
    assert.deepEqual(driveIo(answer, 'data'), { readMs: 1.5, writeMs: 5, failed: 3 });
  });

  it('a drive without requests of a kind has no mean (NaN), not 0 ms', () => {
    const seed = driveIo(answer, 'seed');
    assert.ok(seed && Number.isNaN(seed.readMs) && Number.isNaN(seed.writeMs), `no mean: ${JSON.stringify(seed)}`);
    assert.equal(seed.failed, 0);
    assert.ok(Number.isNaN(driveIo(answer, 'root')?.writeMs), 'root: reads only');
  });

  it('a drive QEMU does not name, or an answer that is not a list, is undefined', () => {
    assert.equal(driveIo(answer, 'lldata'), undefined);
    assert.equal(driveIo({ error: 'x' }, 'data'), undefined);
    assert.equal(driveIo([null, { device: 'data' }], 'data'), undefined);
  });
});
