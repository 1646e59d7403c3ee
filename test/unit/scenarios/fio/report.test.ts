/**
 * Seed 003's fio claims: throughput and p99 latency with no gap between
 * layer, volume and bind (equivalence within the margin), judged on the
 * seed's own stack (containerd-ext4) when the lab has such a host.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Host, SEED_HOSTS, cell, claimOf, claimsOf, reps } from '../../claim-fixture.ts';

const P99 = 'no fio p99 completion-latency gap';
const BW = 'no fio throughput gap';
const JOB = { job: 'randread', direction: 'read' };

/** p99 latency of randread on layer, volume and bind of `host`; the layer's × layerFactor. */
const p99 = (host: string, layerFactor: number, hosts: readonly Host[] = SEED_HOSTS, n = 5) =>
  ['layer', 'volume', 'bind'].flatMap((mount) =>
    cell(hosts, host, 'fio', mount, 'clat_p99', reps(mount === 'layer' ? 1000 * layerFactor : 1000, n), JOB),
  );

describe('seed 003: no p99 latency gap between layer, volume and bind', () => {
  it('confirmed when every interval is within ±10%, contradicted by a gap beyond it, not shown when too wide', () => {
    const same = claimOf(claimsOf(p99('xfs', 1)), P99);
    assert.equal(same?.answer, 'confirmed', same?.evidence.join('\n'));
    assert.match(same?.claim ?? '', /1057 µs on the volume and 1548 µs on the layer/);
    const gap = claimOf(claimsOf(p99('xfs', 1.5)), P99);
    assert.equal(gap?.answer, 'contradicted', gap?.evidence.join('\n'));
    assert.ok(
      gap?.evidence.some((e) => /clat_p99 of randread\/read: layer vs volume on host xfs/.test(e)),
      gap?.evidence.join('\n'),
    );
    const few = claimOf(claimsOf(p99('xfs', 1, SEED_HOSTS, 2)), P99);
    assert.equal(few?.answer, 'not shown');
    assert.ok(
      few?.evidence.some((e) => /cannot rule out/.test(e)),
      few?.evidence.join('\n'),
    );
  });

  it('devicemapper hosts are left out (layer and volume on different disks)', () => {
    assert.equal(claimOf(claimsOf(p99('dm', 2)), P99), undefined);
  });
});

describe("seed 003's stack", () => {
  const hosts: Host[] = [...SEED_HOSTS, { name: 'ctrd', profile: 'containerd-ext4' }];

  it("with a containerd-ext4 host, the claims judge it alone and list the stack as the seed's", () => {
    // A gap on xfs does not count once the seed's stack is in the lab.
    const answers = claimsOf([...p99('xfs', 2, hosts), ...p99('ctrd', 1, hosts)], hosts);
    const claim = claimOf(answers, P99);
    assert.equal(claim?.answer, 'confirmed', claim?.evidence.join('\n'));
    const stack = claim?.parameters?.find((l) => l.label === 'storage stack');
    assert.equal(stack?.same, true, stack?.run);
    assert.match(stack?.run ?? '', /^host ctrd: containerd-ext4 \(/);
  });

  it('without one, every non-devicemapper host is judged and the stack is unlike the seed', () => {
    const claim = claimOf(claimsOf(p99('xfs', 1)), P99);
    const stack = claim?.parameters?.find((l) => l.label === 'storage stack');
    assert.equal(stack?.same, false);
    assert.match(stack?.run ?? '', /^host xfs: overlay2-xfs \(/);
    assert.ok(!stack?.run.includes('host dm'), 'the devicemapper host is not judged');
  });

  it('the throughput claim judges the same hosts', () => {
    const bw = (host: string, f: number) =>
      ['layer', 'volume', 'bind'].flatMap((mount) =>
        cell(hosts, host, 'fio', mount, 'bw', reps(mount === 'layer' ? 1e5 * f : 1e5), JOB),
      );
    assert.equal(claimOf(claimsOf([...bw('xfs', 2), ...bw('ctrd', 1)], hosts), BW)?.answer, 'confirmed');
    assert.equal(claimOf(claimsOf([...bw('xfs', 1), ...bw('ctrd', 2)], hosts), BW)?.answer, 'contradicted');
  });
});
