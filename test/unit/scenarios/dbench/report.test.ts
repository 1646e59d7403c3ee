/**
 * Seed 002's claims: each shared-folder kind held to its own seed ratio
 * (NFS to the Vagrant CoreOS box's 2.9×, virtiofs and 9p to boot2docker's
 * vboxsf 26×), and the container file system differing between two setups.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COREOS_NFS_FACTOR, VBOXSF_FACTOR, seedFactorOf } from '../../../../lab/scenarios/dbench/report.ts';
import { SEED_HOSTS, cell, claimOf, claimsOf, reps } from '../../claim-fixture.ts';

const SLOWER = "dbench on a folder shared from the VM's host";
const DIFFERS = "dbench on the container's own file system gives different throughput";
const ALL = { op: 'all' };

/** Throughput on `mount` of host xfs. */
const on = (mount: string, mbps: number, host = 'xfs', n = 5) =>
  cell(SEED_HOSTS, host, 'dbench', mount, 'throughput', reps(mbps, n), ALL);

describe("seed 002: each shared folder against its own seed's ratio", () => {
  it('NFS is held to 161.1/55.0 ≈ 2.9×, virtiofs and 9p to 30.2/1.16 ≈ 26×', () => {
    assert.equal(COREOS_NFS_FACTOR.toFixed(2), '2.93');
    assert.equal(VBOXSF_FACTOR.toFixed(1), '26.0');
    assert.equal(seedFactorOf('hostshare-nfs'), COREOS_NFS_FACTOR);
    assert.equal(seedFactorOf('hostshare'), VBOXSF_FACTOR);
    assert.equal(seedFactorOf('hostshare-9p'), VBOXSF_FACTOR);
  });

  it('an NFS share 2.9× slower is as the seed; the same gap on virtiofs is not its 26×', () => {
    const nfs = claimOf(claimsOf([...on('layer', 100), ...on('hostshare-nfs', 100 / 2.9)]), SLOWER);
    assert.equal(nfs?.answer, 'confirmed');
    assert.equal(nfs?.size, 'as the seed', nfs?.evidence.join('\n'));
    const virtiofs = claimOf(claimsOf([...on('layer', 100), ...on('hostshare', 100 / 2.9)]), SLOWER);
    assert.equal(virtiofs?.answer, 'confirmed');
    assert.equal(virtiofs?.size, 'contradicted', virtiofs?.evidence.join('\n'));
    assert.ok(
      virtiofs?.evidence.some((e) => /the seed's 26\.0× lies above/.test(e)),
      virtiofs?.evidence.join('\n'),
    );
    const nineP = claimOf(claimsOf([...on('layer', 100), ...on('hostshare-9p', 100 / 26)]), SLOWER);
    assert.equal(nineP?.size, 'as the seed', nineP?.evidence.join('\n'));
  });
});

describe('seed 002: the container file system differs between setups', () => {
  it("confirmed when two hosts' layers differ (size against the seed's 5.3×), contradicted when alike", () => {
    const apart = claimOf(claimsOf([...on('layer', 160), ...on('layer', 30, 'dm')]), DIFFERS);
    assert.equal(apart?.answer, 'confirmed', apart?.evidence.join('\n'));
    assert.equal(apart?.size, 'as the seed', apart?.evidence.join('\n'));
    assert.match(apart?.claim ?? '', /161\.1 MB\/s vs boot2docker 30\.2 MB\/s, 5\.3×/);
    const closer = claimOf(claimsOf([...on('layer', 60), ...on('layer', 30, 'dm')]), DIFFERS);
    assert.equal(closer?.answer, 'confirmed');
    assert.equal(closer?.size, 'contradicted', 'a 2× gap is not the seed 5.3×');
    const alike = claimOf(claimsOf([...on('layer', 100), ...on('layer', 100, 'dm')]), DIFFERS);
    assert.equal(alike?.answer, 'contradicted', alike?.evidence.join('\n'));
    assert.equal(alike?.size, undefined);
  });

  it('not shown when too few runs to tell; left out with one host', () => {
    const few = claimOf(claimsOf([...on('layer', 100, 'xfs', 2), ...on('layer', 100, 'dm', 2)]), DIFFERS);
    assert.equal(few?.answer, 'not shown', few?.evidence.join('\n'));
    assert.equal(claimOf(claimsOf(on('layer', 100)), DIFFERS), undefined);
  });

  it("lists the seed's two setups as unlike this run's hosts", () => {
    const claim = claimOf(claimsOf([...on('layer', 160), ...on('layer', 30, 'dm')]), DIFFERS);
    const setups = claim?.parameters?.find((l) => l.label === 'setups');
    assert.equal(setups?.same, false);
    assert.match(setups?.run ?? '', /host xfs: overlay2-xfs .*; host dm: devicemapper-lvm/);
  });
});
