/**
 * `pulumi destroy` can remove every lab the schema accepts: spot and
 * on-demand × Debian and Flatcar × a VPC of the lab's own and the default
 * VPC. The program runs under mocks; each resource it declares is checked
 * against the rules in destroy-rules.ts (options that block destroy or leave
 * something billed behind).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLabDefinition } from '../../../../lab/definition/load.ts';
import { installMockCloud, resolved, settle } from '../mock-cloud.ts';
import { DESTROY_RULES, destroyProblems } from './destroy-rules.ts';

const cloud = installMockCloud({ project: 'layerlab', stack: 'destroy', dryRun: false });
const { awsLab } = await import('../../../../infra/aws/program.ts');

const TAGS = { runId: 'r1', owner: 'perf', expiresAt: '2026-12-05T06:00:00.000Z' };

interface Shape {
  spot: boolean;
  profile: 'overlay2-xfs' | 'flatcar';
  vpc: 'create' | 'default';
}

const SHAPES: Shape[] = [false, true].flatMap((spot) =>
  (['overlay2-xfs', 'flatcar'] as const).flatMap((profile) =>
    (['create', 'default'] as const).map((vpc) => ({ spot, profile, vpc })),
  ),
);

async function declare(shape: Shape) {
  const name = `${shape.spot ? 'spot' : 'od'}-${shape.profile === 'flatcar' ? 'fc' : 'deb'}-${shape.vpc}`;
  const lab = parseLabDefinition(
    `name: ${name}
target: { kind: aws, aws: { spot: ${shape.spot}, vpc: ${shape.vpc} } }
hosts: [{ name: h, profile: ${shape.profile}, diskGiB: 20 }]
scenarios: { fio: { size: 16M } }
mounts: [volume]
repetitions: 3
`,
    `labs/${name}.yaml`,
  );
  const out = awsLab({ lab, tags: { ...TAGS, lab: name }, sshCidrs: ['203.0.113.7/32'], allowOpenSsh: false });
  await resolved(out.inventory);
  await settle();
  return cloud.resources.filter((r) => r.name.startsWith(`${name}-`));
}

describe('pulumi destroy can remove every lab shape', () => {
  for (const shape of SHAPES) {
    it(`${shape.spot ? 'spot' : 'on-demand'}, ${shape.profile}, vpc ${shape.vpc}`, async () => {
      const mine = await declare(shape);
      const types = new Set(mine.map((r) => r.type));
      for (const t of [
        'aws:ec2/instance:Instance',
        'aws:ebs/volume:Volume',
        'aws:ec2/volumeAttachment:VolumeAttachment',
      ]) {
        assert.ok(types.has(t), `declares ${t}`);
      }
      assert.equal(types.has('aws:ec2/vpc:Vpc'), shape.vpc === 'create');
      assert.deepEqual(destroyProblems(mine), []);
      const attachment = mine.find((r) => r.type === 'aws:ec2/volumeAttachment:VolumeAttachment');
      // On-demand hosts still stop for a clean unmount; spot volumes are forced off.
      assert.equal(attachment?.inputs.stopInstanceBeforeDetaching, !shape.spot);
      assert.equal(attachment?.inputs.forceDetach, shape.spot);
    });
  }

  it('each rule catches what it names (the rule list can fail)', () => {
    const base = {
      name: 'x',
      inputs: {},
      secret: [],
      provider: 'urn:p::id',
      urn: 'urn:x',
      id: 'i-0x',
      protect: false,
      retainOnDelete: false,
    };
    const spot = {
      ...base,
      type: 'aws:ec2/instance:Instance',
      inputs: { instanceMarketOptions: { marketType: 'spot', spotOptions: { spotInstanceType: 'one-time' } } },
    };
    const attach = (inputs: Record<string, unknown>) => ({
      ...base,
      name: 'a',
      id: 'a',
      type: 'aws:ec2/volumeAttachment:VolumeAttachment',
      inputs: { instanceId: 'i-0x', ...inputs },
    });
    const instance = (inputs: Record<string, unknown>) => ({ ...base, type: 'aws:ec2/instance:Instance', inputs });
    const cases: Record<string, Parameters<typeof destroyProblems>[0]> = {
      protect: [{ ...base, type: 'aws:ec2/vpc:Vpc', protect: true }],
      retainOnDelete: [{ ...base, type: 'aws:ebs/volume:Volume', retainOnDelete: true }],
      disableApiTermination: [instance({ disableApiTermination: true })],
      // Today's bug (issue 34): one-time spot instance, attachment that stops it first.
      'spot-stop-before-detach': [spot, attach({ stopInstanceBeforeDetaching: true })],
      'attachment-skip-destroy': [attach({ skipDestroy: true })],
      'persistent-spot': [
        instance({ instanceMarketOptions: { marketType: 'spot', spotOptions: { spotInstanceType: 'persistent' } } }),
      ],
      'spot-stop-or-hibernate': [
        instance({
          instanceMarketOptions: { marketType: 'spot', spotOptions: { instanceInterruptionBehavior: 'stop' } },
        }),
      ],
      'root-outlives-instance': [instance({ rootBlockDevice: { deleteOnTermination: false } })],
      'final-snapshot': [{ ...base, type: 'aws:ebs/volume:Volume', inputs: { finalSnapshot: true } }],
      'adopted-default-network': [{ ...base, type: 'aws:ec2/defaultVpc:DefaultVpc' }],
      'default-provider': [{ ...base, type: 'aws:ec2/keyPair:KeyPair', provider: '' }],
    };
    assert.deepEqual(Object.keys(cases).sort(), DESTROY_RULES.map((r) => r.id).sort(), 'one case per rule');
    for (const [id, resources] of Object.entries(cases)) {
      const problems = destroyProblems(resources);
      assert.equal(problems.length, 1, `${id}: ${problems.join('; ')}`);
      assert.match(problems[0] ?? '', new RegExp(`: ${id} — `));
    }
    // On-demand instances may stop before detaching.
    assert.deepEqual(destroyProblems([instance({}), attach({ stopInstanceBeforeDetaching: true })]), []);
  });
});
