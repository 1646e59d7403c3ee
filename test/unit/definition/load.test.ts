import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MOUNT_KIND_NAMES, PROFILE_NAMES } from '../../../lab/catalog.ts';
import { parseLabDefinition } from '../../../lab/definition/load.ts';
import { UserError } from '../../../lab/errors.ts';

const good = `name: t
hosts:
  - name: a
    profile: overlay2-xfs
  - name: b
    profile: devicemapper-lvm
scenarios:
  fio: { size: 16M }
mounts: [layer, volume, bind]
repetitions: 2
`;

function errorOf(text: string): string {
  try {
    parseLabDefinition(text, 'labs/x.yaml');
  } catch (err) {
    assert.ok(err instanceof UserError, 'a UserError (exit 2)');
    return err.message;
  }
  assert.fail('expected the definition to be refused');
}

describe('lab definition', () => {
  it('accepts a good definition and fills defaults', () => {
    const lab = parseLabDefinition(good, 'labs/x.yaml');
    assert.equal(lab.hosts[0]?.memoryMiB, 1024);
    assert.equal(lab.scenarios.fio?.runtime, 5);
    assert.equal(lab.target.kind, 'local');
  });

  it('malformed YAML names file and line', () => {
    assert.match(errorOf('name: [t\nhosts: 1\n'), /labs\/x\.yaml:\d+:\d+: malformed YAML/);
  });

  it('unknown keys name the path and line', () => {
    const msg = errorOf(good.replace('profile: overlay2-xfs', 'profile: overlay2-xfs\n    colour: red'));
    assert.match(msg, /labs\/x\.yaml:5:5: hosts\[0\]\.colour: unknown key "colour"/);
  });

  it('wrong types say what was expected and what was found', () => {
    assert.match(
      errorOf(good.replace('repetitions: 2', 'repetitions: "2"')),
      /repetitions: expected a number of repetitions or a stop rule \{ min, max, targetCiWidth, budgetMinutes \}; got "2"/,
    );
  });

  it('unknown profile, scenario and mount names list the known ones', () => {
    assert.ok(
      errorOf(good.replace('profile: overlay2-xfs', 'profile: zfs')).includes(
        `hosts[0].profile: expected one of ${PROFILE_NAMES.join(', ')}; got "zfs"`,
      ),
      "errorOf(good.replace('profile: overlay2-xfs', 'profile: zfs')).includes( `hosts[0].profile: expected one of ${PROFILE_NAMES.join(', ')}; got \"zfs\"`, )",
    );
    assert.match(errorOf(good.replace('fio: { size: 16M }', 'bonnie: {}')), /scenarios\.bonnie: unknown key "bonnie"/);
    assert.match(
      errorOf(good.replace('[layer, volume, bind]', '[layer, nfs]')),
      new RegExp(`mounts\\[1\\]: expected one of ${MOUNT_KIND_NAMES.join(', ')}; got "nfs"`),
    );
  });

  it('duplicate host names are refused', () => {
    assert.match(errorOf(good.replace('name: b', 'name: a')), /hosts\[1\]\.name: duplicate host name "a"/);
  });

  it('out-of-range sizes are refused', () => {
    assert.match(errorOf(good.replace('size: 16M', 'size: 16Q')), /scenarios\.fio\.size: expected a size/);
    assert.match(
      errorOf(good.replace('size: 16M', 'size: 3G')),
      /hosts\[0\]\.diskGiB: data disk of 4 GiB is too small/,
    );
    assert.match(errorOf(good.replace('repetitions: 2', 'repetitions: 0')), /repetitions: expected >= 1; got 0/);
    assert.match(
      errorOf(good.replace('profile: overlay2-xfs', 'profile: overlay2-xfs\n    memoryMiB: 64')),
      /memoryMiB: expected >= 512; got 64/,
    );
  });

  it('names with shell metacharacters are refused', () => {
    assert.match(
      errorOf(good.replace('name: a', 'name: "a;rm -rf /"')),
      /hosts\[0\]\.name: expected a name of lowercase letters/,
    );
    assert.match(
      errorOf(good.replace('name: t', 'name: $(id)')),
      /^invalid lab definition:\n\s+labs\/x\.yaml:1:7: name: expected a name/,
    );
  });

  it('takes a stop rule and checks it', () => {
    const lab = parseLabDefinition(
      good.replace('repetitions: 2', 'repetitions: { min: 3, max: 10, targetCiWidth: 0.1 }'),
      'x',
    );
    assert.deepEqual(lab.repetitions, { min: 3, max: 10, targetCiWidth: 0.1 });
    assert.deepEqual(parseLabDefinition(good, 'x').repetitions, {
      min: 2,
      max: 2,
      targetCiWidth: undefined,
      budgetMinutes: undefined,
    });
    assert.match(
      errorOf(good.replace('repetitions: 2', 'repetitions: { min: 5, max: 3 }')),
      /repetitions\.max: max must be >= min/,
    );
    assert.match(
      errorOf(good.replace('repetitions: 2', 'repetitions: { min: 3, max: 5, until: 1 }')),
      /repetitions\.until: unknown key/,
    );
  });

  it('a missing required key is named', () => {
    assert.match(
      errorOf(good.replace('repetitions: 2\n', '')),
      /repetitions: missing; expected a number of repetitions or a stop rule/,
    );
  });

  it('hostshare is refused before anything starts on targets without a host folder to share', () => {
    const shared = good.replace('mounts: [layer, volume, bind]', 'mounts: [layer, hostshare]');
    assert.deepEqual(parseLabDefinition(shared, 'labs/x.yaml').mounts, ['layer', 'hostshare']);
    const refused = (() => {
      try {
        parseLabDefinition(shared, 'labs/x.yaml', { target: 'static' });
      } catch (err) {
        return (err as Error).message;
      }
      return '';
    })();
    assert.match(refused, /mounts\[1\]: mount kind hostshare \(.*\) runs only on target local; remove it from mounts/);
  });

  it("TCG's translated-code cache: 256 MiB unless the lab sets it, within bounds", () => {
    assert.equal(parseLabDefinition(good, 'labs/x.yaml').target.local.tcgCacheMiB, 256);
    const large = `${good}target: { local: { tcgCacheMiB: 1024 } }\n`;
    assert.equal(parseLabDefinition(large, 'labs/x.yaml').target.local.tcgCacheMiB, 1024);
    assert.match(errorOf(`${good}target: { local: { tcgCacheMiB: 16 } }\n`), /target\.local\.tcgCacheMiB/);
  });

  it("the local VMs' disk aio mode: native unless the lab sets threads or io_uring; nothing else", () => {
    assert.equal(parseLabDefinition(good, 'labs/x.yaml').target.local.diskAio, 'native');
    for (const mode of ['native', 'threads', 'io_uring']) {
      const set = `${good}target: { local: { diskAio: ${mode} } }\n`;
      assert.equal(parseLabDefinition(set, 'labs/x.yaml').target.local.diskAio, mode);
    }
    assert.match(
      errorOf(`${good}target: { local: { diskAio: posix } }\n`),
      /target\.local\.diskAio: expected one of native, threads, io_uring; got "posix"/,
    );
  });

  it('hostshare-nfs is a local kind too; virtiofs takes a cache mode, auto unless set', () => {
    const nfs = good.replace('mounts: [layer, volume, bind]', 'mounts: [layer, hostshare, hostshare-nfs]');
    const lab = parseLabDefinition(nfs, 'labs/x.yaml');
    assert.deepEqual(lab.mounts, ['layer', 'hostshare', 'hostshare-nfs']);
    assert.equal(lab.target.local.virtiofsCache, 'auto');
    const never = `${nfs}target: { local: { virtiofsCache: always } }\n`;
    assert.equal(parseLabDefinition(never, 'labs/x.yaml').target.local.virtiofsCache, 'always');
    assert.match(
      errorOf(`${nfs}target: { local: { virtiofsCache: writeback } }\n`),
      /target\.local\.virtiofsCache: expected one of none, auto, always; got "writeback"/,
    );
    assert.throws(
      () => parseLabDefinition(nfs, 'labs/x.yaml', { target: 'aws' }),
      /mount kind hostshare-nfs \(.*\) runs only on target local/,
    );
  });

  it('scenarios that bring their own storage ignore the mounts list; the others are checked against it', () => {
    const own = good.replace('fio: { size: 16M }', 'permissions: {}\n  lifetime: {}\n  lifecycle: { containers: 2 }');
    assert.equal(parseLabDefinition(own, 'labs/x.yaml').scenarios.lifecycle?.churnContainers, 5);
    assert.match(
      errorOf(own.replace('permissions: {}', 'permissions: { cases: [fresh-volume, sudo-fix] }')),
      /scenarios\.permissions\.cases\[1\]: expected one of missing-host-path, .*; got "sudo-fix"/,
    );
    assert.match(
      errorOf(good.replace('fio: { size: 16M }', 'dbench: { loadfile: "x; rm -rf /" }')),
      /scenarios\.dbench\.loadfile: expected a loadfile name such as "client\.txt"/,
    );
  });

  it('scenarioRepetitions caps an enabled scenario below the lab repetitions, or is refused', () => {
    const two = good.replace('fio: { size: 16M }', 'fio: { size: 16M }\n  permissions: {}');
    const reps = (n: number) => two.replace(/repetitions: .*/, `repetitions: ${n}`);
    assert.deepEqual(
      parseLabDefinition(`${reps(5)}scenarioRepetitions: { permissions: 1 }\n`, 'labs/x.yaml').scenarioRepetitions,
      { permissions: 1 },
    );
    assert.match(
      errorOf(`${reps(3)}scenarioRepetitions: { permissions: 3 }\n`),
      /scenarioRepetitions\.permissions: 3 is not fewer than the lab's repetitions \(3\), so it changes nothing/,
    );
    assert.match(
      errorOf(`${reps(5)}scenarioRepetitions: { lifetime: 1 }\n`),
      /scenarioRepetitions\.lifetime: scenario lifetime is not in scenarios/,
    );
    assert.match(errorOf(`${reps(5)}scenarioRepetitions: { permissions: 0 }\n`), /scenarioRepetitions\.permissions/);
    assert.match(errorOf(`${reps(5)}scenarioRepetitions: { nosuch: 1 }\n`), /scenarioRepetitions/);
  });

  it('scenarioMounts narrows the mounts list for one scenario, and only narrows it', () => {
    const two = good.replace('fio: { size: 16M }', 'fio: { size: 16M }\n  dbench: {}');
    const narrowed = parseLabDefinition(`${two}scenarioMounts: { fio: [bind, volume] }\n`, 'labs/x.yaml');
    assert.deepEqual(narrowed.scenarioMounts, { fio: ['bind', 'volume'] });
    assert.deepEqual(parseLabDefinition(two, 'labs/x.yaml').scenarioMounts, {});
    assert.match(
      errorOf(`${two}scenarioMounts: { fio: [volume, hostshare] }\n`),
      /scenarioMounts\.fio: mount kind\(s\) hostshare not in the lab's mounts \(layer, volume, bind\); scenarioMounts only narrows that list/,
    );
    assert.match(
      errorOf(`${two}scenarioMounts: { backup: [volume] }\n`),
      /scenarioMounts\.backup: scenario backup is not in scenarios/,
    );
    assert.match(
      errorOf(`${two.replace('dbench: {}', 'lifetime: {}')}scenarioMounts: { lifetime: [volume] }\n`),
      /scenarioMounts\.lifetime: scenario lifetime brings its own storage and takes no mount kinds/,
    );
    assert.match(errorOf(`${two}scenarioMounts: { fio: [] }\n`), /scenarioMounts\.fio/);
    assert.match(errorOf(`${two}scenarioMounts: { fio: [bind, bind] }\n`), /scenarioMounts\.fio: duplicate mount kind/);
  });

  it('fio runs a subset of its four jobs, always in fio order', async () => {
    const { SCENARIOS } = await import('../../../lab/scenarios/index.ts');
    const lab = parseLabDefinition(
      good.replace('fio: { size: 16M }', 'fio: { size: 16M, jobs: [randread, seqwrite] }'),
      'labs/x.yaml',
    );
    const fio = lab.scenarios.fio;
    assert.ok(fio, 'fio parameters');
    assert.equal(SCENARIOS.fio.guestEnv(fio).LL_P_JOBS, 'seqwrite:write:seq randread:randread:rand');
    assert.equal(SCENARIOS.fio.expectedSeconds(fio), 2 * (5 + 1) + 7);
    assert.equal(SCENARIOS.fio.expectedSeconds({ ...fio, container: 'kept' }), 2 * (5 + 1) + 4);
    assert.equal(parseLabDefinition(good, 'labs/x.yaml').scenarios.fio?.jobs.length, 4);
    assert.match(
      errorOf(good.replace('fio: { size: 16M }', 'fio: { jobs: [seqread, seqread] }')),
      /scenarios\.fio\.jobs: duplicate fio job/,
    );
    assert.match(
      errorOf(good.replace('fio: { size: 16M }', 'fio: { jobs: [readwrite] }')),
      /scenarios\.fio\.jobs\[0\]: expected one of seqwrite, seqread, randwrite, randread/,
    );
  });

  it('equivalent names A/A pairs of mount kinds or hosts the lab has', () => {
    assert.deepEqual(parseLabDefinition(`${good}equivalent: [[layer, bind]]\n`, 'labs/x.yaml').equivalent, [
      ['layer', 'bind'],
    ]);
    assert.deepEqual(parseLabDefinition(good, 'labs/x.yaml').equivalent, []);
    assert.match(
      errorOf(`${good}equivalent: [[volume, hostshare]]\n`),
      /equivalent\[0\]: expected two different mount kinds of mounts \(layer, volume, bind\) or two different host names/,
    );
    assert.match(errorOf(`${good}equivalent: [[bind, bind]]\n`), /equivalent\[0\]/);
  });

  it('a profile its target cannot host is refused, also after --target', () => {
    const flatcar = good.replace('profile: devicemapper-lvm', 'profile: flatcar');
    assert.match(
      errorOf(flatcar),
      /hosts\[1\]\.profile: profile flatcar cannot run on target local \(runs on aws, static\)/,
    );
    assert.equal(parseLabDefinition(flatcar, 'labs/x.yaml', { target: 'aws' }).target.kind, 'aws');
    assert.match(
      (() => {
        try {
          parseLabDefinition(good, 'labs/x.yaml', { target: 'gcp' });
        } catch (err) {
          return (err as Error).message;
        }
        return '';
      })(),
      /target\.kind: expected one of local, aws, static; got "gcp"/,
    );
  });

  it('cloud volume settings are checked against the volume type', () => {
    const aws = (block: string) => good.replace('hosts:', `target:\n  kind: aws\n  aws: ${block}\nhosts:`);
    assert.match(
      errorOf(aws('{ volumeType: st1, iops: 3000 }')),
      /target\.aws\.iops: iops applies to gp3, io1 and io2, not st1/,
    );
    assert.match(errorOf(aws('{ volumeType: io2 }')), /target\.aws\.iops: volumeType io2 needs iops/);
    assert.match(errorOf(aws('{ volumeType: gp2, throughput: 250 }')), /throughput applies to gp3 only/);
    assert.match(errorOf(aws('{ region: "eu central" }')), /target\.aws\.region: expected an AWS region/);
    const lab = parseLabDefinition(aws('{ volumeType: gp3, iops: 4000, throughput: 250 }'), 'labs/x.yaml');
    assert.deepEqual(
      [lab.target.aws.volumeType, lab.target.aws.iops, lab.target.aws.throughput, lab.target.aws.spot],
      ['gp3', 4000, 250, false],
    );
  });
});
