/**
 * Seed 004's claims beyond run and rm (issue 39): inspect --size, stop, the
 * package churn and the disk held, each confirmed, contradicted or not shown
 * on made-up runs; and the stack and network lines every 004 claim lists as
 * unlike the seed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SEED_HOSTS, cell, claimOf, claimsOf, reps } from '../../claim-fixture.ts';

/** Seconds of `phase` on xfs (10 s) and on dm (10 s × dmFactor). */
const phase = (name: string, dmFactor: number, n = 5) => [
  ...cell(SEED_HOSTS, 'xfs', 'lifecycle', 'none', 'seconds', reps(10, n), { phase: name }),
  ...cell(SEED_HOSTS, 'dm', 'lifecycle', 'none', 'seconds', reps(10 * dmFactor, n), { phase: name }),
];

/** Disk values at the start and after the run phase: overlay2 grows by `ovGrowth` bytes, the thin pool by `dmGrowth`. */
function disk(ovGrowth: number, dmGrowth: number, n = 5) {
  const at = (p: string, host: string, metric: string, values: number[]) =>
    cell(SEED_HOSTS, host, 'lifecycle', 'none', metric, values, { phase: p });
  const base = 1e9;
  return [
    ...at(
      'start',
      'xfs',
      'data_root_bytes',
      reps(base, n).map(() => base),
    ),
    ...at(
      'run',
      'xfs',
      'data_root_bytes',
      reps(ovGrowth, n).map((g) => base + g),
    ),
    ...at(
      'start',
      'dm',
      'data_root_bytes',
      reps(base, n).map(() => 1e6),
    ),
    ...at(
      'run',
      'dm',
      'data_root_bytes',
      reps(base, n).map(() => 1e6 + 5e4),
    ),
    ...at(
      'start',
      'dm',
      'thin_data_bytes',
      reps(base, n).map(() => base),
    ),
    ...at(
      'run',
      'dm',
      'thin_data_bytes',
      reps(dmGrowth, n).map((g) => base + g),
    ),
  ];
}

const INSPECT = 'devicemapper (direct-lvm) is slower than overlay2 at `docker inspect --size`';
const STOP = 'devicemapper (direct-lvm) is slower than overlay2 at stopping';
const CHURN = 'devicemapper (direct-lvm) is slower than overlay2 at changing packages';
const DISK = 'devicemapper (direct-lvm) holds more disk';

describe('seed 004: inspect --size, stop and the churn', () => {
  it("inspect: confirmed at the seed's 6.8×, the size as the seed; contradicted when faster; not shown when the same", () => {
    const slower = claimOf(claimsOf(phase('inspect', 6.8)), INSPECT);
    assert.equal(slower?.answer, 'confirmed');
    assert.equal(slower?.size, 'as the seed', slower?.evidence.join('\n'));
    assert.match(slower?.claim ?? '', /18\.3 vs 2\.69 s, 6\.78×/);
    assert.equal(claimOf(claimsOf(phase('inspect', 0.5)), INSPECT)?.answer, 'contradicted');
    assert.equal(claimOf(claimsOf(phase('inspect', 1)), INSPECT)?.answer, 'not shown');
  });

  it("stop: the seed's 1.5× is held to our interval; a 3× gap confirms the direction but not the size", () => {
    const three = claimOf(claimsOf(phase('stop', 3)), STOP);
    assert.equal(three?.answer, 'confirmed');
    assert.equal(three?.size, 'contradicted', 'the seed 1.5× lies below our interval around 3×');
    assert.equal(claimOf(claimsOf(phase('stop', 1.5)), STOP)?.size, 'as the seed');
    assert.equal(claimOf(claimsOf(phase('stop', 0.7)), STOP)?.answer, 'contradicted');
    assert.equal(claimOf(claimsOf(phase('stop', 1)), STOP)?.answer, 'not shown');
  });

  it('churn: install and remove both judged, each against its own playbook; one opposite contradicts', () => {
    const both = claimOf(claimsOf([...phase('install', 1.5), ...phase('remove', 1.5)]), CHURN);
    assert.equal(both?.answer, 'confirmed');
    assert.equal(both?.evidence.length, 2, both?.evidence.join('\n'));
    assert.ok(
      both?.evidence.some((e) => /seconds of install: .*size contradicted: the seed's 1\.05× lies below/.test(e)),
      both?.evidence.join('\n'),
    );
    assert.ok(
      both?.evidence.some((e) => /seconds of remove: .*size: the seed's 1\.52× lies inside/.test(e)),
      both?.evidence.join('\n'),
    );
    assert.equal(claimOf(claimsOf([...phase('install', 1.5), ...phase('remove', 0.6)]), CHURN)?.answer, 'contradicted');
    assert.equal(claimOf(claimsOf([...phase('install', 1), ...phase('remove', 1)]), CHURN)?.answer, 'not shown');
    assert.equal(claimOf(claimsOf(phase('run', 4)), CHURN), undefined, 'no churn data: the claim is left out');
  });
});

describe('seed 004: the disk held once the containers run', () => {
  it('confirmed when the thin pool grows more than the overlay2 data root, contradicted when less, not shown when alike', () => {
    const more = claimOf(claimsOf(disk(20e6, 80e6)), DISK);
    assert.equal(more?.answer, 'confirmed', more?.evidence.join('\n'));
    assert.equal(more?.size, undefined, 'the seed gave no figure');
    assert.ok(
      more?.evidence.some((e) => /growth_bytes of run: dm vs xfs/.test(e)),
      more?.evidence.join('\n'),
    );
    assert.ok(
      more?.evidence.some((e) => /a family of one/.test(e)),
      'says the comparison is not in the family',
    );
    assert.equal(claimOf(claimsOf(disk(80e6, 20e6)), DISK)?.answer, 'contradicted');
    assert.equal(claimOf(claimsOf(disk(20e6, 20e6)), DISK)?.answer, 'not shown');
    assert.equal(claimOf(claimsOf(disk(20e6, 80e6, 3)), DISK)?.answer, 'not shown', 'three per side cannot show it');
  });
});

describe("seed 004's stack and network, unlike the seed under every claim", () => {
  it("names each driver's host with its profile, and the network the timed docker run leaves out", () => {
    const lines = claimOf(claimsOf(phase('inspect', 6.8)), INSPECT)?.parameters ?? [];
    const line = (label: string) => lines.find((l) => l.label === label);
    assert.match(line('OverlayFS host')?.run ?? '', /^host xfs: overlay2-xfs \(/);
    assert.equal(line('OverlayFS host')?.same, false);
    assert.equal(line('OverlayFS host')?.source.words, "STORAGE_DRIVER='overlay'");
    assert.match(line('devicemapper host')?.run ?? '', /^host dm: devicemapper-lvm \(direct-lvm thin pool/);
    assert.match(line('container network')?.run ?? '', /--network none/);
    assert.equal(line('container network')?.source.line, 38);
  });

  it('a host of another driver is not among the 004 hosts: a containerd host stays out of its stack lines', () => {
    const hosts = [...SEED_HOSTS, { name: 'ctrd', profile: 'containerd-ext4' }];
    const lines =
      claimOf(
        claimsOf(
          [
            ...phase('inspect', 6.8),
            ...cell(hosts, 'ctrd', 'lifecycle', 'none', 'seconds', reps(10), { phase: 'inspect' }),
          ],
          hosts,
        ),
        INSPECT,
      )?.parameters ?? [];
    assert.ok(
      lines.every((l) => !l.run.includes('ctrd')),
      lines.map((l) => l.run).join('\n'),
    );
  });
});
