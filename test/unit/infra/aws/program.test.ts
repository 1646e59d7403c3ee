/**
 * infra/aws/program.ts under Pulumi's mocks (mock-cloud.ts): no CLI, no cloud,
 * no network. Every resource the program declares is recorded and asserted
 * on: what it declares for a lab, the SSH guard applied before anything is
 * declared, encrypted volumes and no host key in user data (issue 12 finding
 * 11; the console and the controller's pin: targets/aws/console-host-key and
 * driver tests), and that `pulumi destroy` can remove every lab the schema
 * accepts — spot and on-demand × Debian and Flatcar × a VPC of the lab's own
 * and the default VPC, each resource checked against the rules in
 * destroy-rules.ts (options that block destroy or leave something billed behind).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import * as pulumi from '@pulumi/pulumi';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { PROFILES, PROFILE_NAMES, type ProfileName, baseImageOf } from '../../../../lab/catalog.ts';
import { parseLabDefinition } from '../../../../lab/definition/load.ts';
import type { AwsStackInventory } from '../../../../lab/targets/aws/stack-inventory.ts';
import { installMockCloud, resolved, settle } from '../mock-cloud.ts';
import { DESTROY_RULES, destroyProblems } from './destroy-rules.ts';

const cloud = installMockCloud({ project: 'layerlab', stack: 'test', dryRun: false });
const { awsLab } = await import('../../../../infra/aws/program.ts');
const { AMI_SOURCES } = await import('../../../../infra/aws/ami.ts');
const { IGNITION_VERSION } = await import('../../../../infra/aws/user-data.ts');

/** The first release a profile runs on (flatcar: the default, which it ignores). */
function hostOs(profile: ProfileName) {
  return PROFILES[profile].releases[0] ?? 'debian-12';
}

function labText(name: string, profiles: ProfileName[], aws = '{}'): string {
  return `name: ${name}
target: { kind: aws, aws: ${aws} }
hosts:
${profiles.map((p, i) => `  - { name: h${i}, profile: ${p}, os: ${hostOs(p)}, diskGiB: ${20 + i} }`).join('\n')}
scenarios: { fio: { size: 16M } }
mounts: [volume]
repetitions: 3
`;
}

const TAGS = { runId: 'nightly-42', owner: 'perf-team', expiresAt: '2026-12-01T06:00:00.000Z' };

/** Declares lab `name` (hosts of these profiles, target.aws as given) and lets it settle. */
async function declare(
  name: string,
  profiles: ProfileName[],
  extra: Partial<Parameters<typeof awsLab>[0]> = {},
  aws = '{}',
) {
  const lab = parseLabDefinition(labText(name, profiles, aws), `labs/${name}.yaml`);
  const out = awsLab({
    lab,
    tags: { ...TAGS, lab: name },
    sshCidrs: ['203.0.113.7/32'],
    allowOpenSsh: false,
    ...extra,
  });
  const inventory = await resolved(out.inventory);
  const key = await resolved(out.sshPrivateKey);
  // Let resources declared alongside (attachments, route associations) register.
  await settle();
  const mine = cloud.resources.filter((r) => r.name.startsWith(`${name}-`) || r.name === name);
  return { out, inventory, key, mine };
}

const ignitionSchema = z
  .object({
    ignition: z.object({ version: z.literal('3.3.0') }).strict(),
    passwd: z
      .object({
        users: z.array(z.object({ name: z.string(), sshAuthorizedKeys: z.array(z.string().min(1)) }).strict()),
      })
      .strict(),
    storage: z
      .object({
        files: z.array(
          z
            .object({
              path: z.string().startsWith('/'),
              mode: z.number().int(),
              overwrite: z.boolean(),
              contents: z.object({ source: z.string().regex(/^data:[^,]*,/) }).strict(),
            })
            .strict(),
        ),
      })
      .strict(),
    systemd: z
      .object({
        units: z.array(z.object({ name: z.string(), enabled: z.boolean(), contents: z.string().optional() }).strict()),
      })
      .strict(),
  })
  .strict();

const TAGGABLE = new Set([
  'aws:ec2/vpc:Vpc',
  'aws:ec2/internetGateway:InternetGateway',
  'aws:ec2/subnet:Subnet',
  'aws:ec2/routeTable:RouteTable',
  'aws:ec2/securityGroup:SecurityGroup',
  'aws:ec2/keyPair:KeyPair',
  'aws:ec2/instance:Instance',
  'aws:ebs/volume:Volume',
]);

describe('infra/aws under Pulumi mocks', () => {
  let lab: Awaited<ReturnType<typeof declare>>;
  before(async () => {
    lab = await declare('two', ['overlay2-xfs', 'devicemapper-lvm']);
  });

  it('SSH is open only to the operator, egress open for apt', () => {
    const groups = lab.mine.filter((r) => r.type === 'aws:ec2/securityGroup:SecurityGroup');
    assert.equal(groups.length, 1);
    const ingress = groups[0]?.inputs.ingress as Record<string, unknown>[];
    assert.deepEqual(
      ingress.map((r) => [r.protocol, r.fromPort, r.toPort, r.cidrBlocks]),
      [['tcp', 22, 22, ['203.0.113.7/32']]],
    );
  });

  it('refuses 0.0.0.0/0 unless allowOpenSsh, and refuses an empty or malformed list', () => {
    const def = parseLabDefinition(labText('open', ['overlay2-xfs']), 'labs/open.yaml');
    const args = { lab: def, tags: { ...TAGS, lab: 'open' }, allowOpenSsh: false };
    const before = cloud.resources.length;
    assert.throws(() => awsLab({ ...args, sshCidrs: ['0.0.0.0/0'] }), /whole internet.*allowOpenSsh/);
    assert.throws(() => awsLab({ ...args, sshCidrs: ['::/0'] }), /whole internet/);
    assert.throws(() => awsLab({ ...args, sshCidrs: [] }), /sshCidrs is empty/);
    assert.throws(() => awsLab({ ...args, sshCidrs: ['10.0.0.300/32'] }), /"10\.0\.0\.300\/32" is not a CIDR/);
    assert.throws(() => awsLab({ ...args, sshCidrs: ['my-laptop'] }), /not a CIDR/);
    assert.equal(cloud.resources.length, before, 'nothing is declared before the check');
  });

  it('refuses the bypasses of the SSH guard (issue 12 finding 7) before declaring anything', () => {
    // ssh-cidrs.test.ts refuses every bypass the review found; here, that the program asks the guard first.
    const def = parseLabDefinition(labText('cidr', ['overlay2-xfs']), 'labs/cidr.yaml');
    const before = cloud.resources.length;
    for (const cidrs of [['1.2.3.4/0'], ['0.0.0.0/1', '128.0.0.0/1'], ['2000::/3']]) {
      assert.throws(
        () => awsLab({ lab: def, tags: { ...TAGS, lab: 'cidr' }, sshCidrs: cidrs, allowOpenSsh: false }),
        /layerlab:sshCidrs/,
        cidrs.join(' + '),
      );
    }
    assert.equal(cloud.resources.length, before, 'nothing is declared before the check');
  });

  it('allows the whole internet only when asked explicitly', async () => {
    const open = await declare('opened', ['overlay2-xfs'], { sshCidrs: ['0.0.0.0/0'], allowOpenSsh: true });
    const group = open.mine.find((r) => r.type === 'aws:ec2/securityGroup:SecurityGroup');
    assert.deepEqual((group?.inputs.ingress as Record<string, unknown>[])[0]?.cidrBlocks, ['0.0.0.0/0']);
  });

  it('one instance, one data volume and one attachment per host', () => {
    const count = (type: string) => lab.mine.filter((r) => r.type === type).length;
    assert.equal(count('aws:ec2/instance:Instance'), 2);
    assert.equal(count('aws:ebs/volume:Volume'), 2);
    assert.equal(count('aws:ec2/volumeAttachment:VolumeAttachment'), 2);
    assert.equal(count('aws:ec2/keyPair:KeyPair'), 1);
    const volumes = lab.mine.filter((r) => r.type === 'aws:ebs/volume:Volume');
    assert.deepEqual(
      volumes.map((v) => [v.inputs.size, v.inputs.type, v.inputs.availabilityZone]),
      [
        [20, 'gp3', 'eu-central-1a'],
        [21, 'gp3', 'eu-central-1a'],
      ],
    );
    for (const a of lab.mine.filter((r) => r.type === 'aws:ec2/volumeAttachment:VolumeAttachment')) {
      assert.equal(a.inputs.deviceName, '/dev/sdf');
      assert.match(String(a.inputs.volumeId), /^vol-/);
    }
  });

  it('volume type, iops, throughput and spot come from the definition', async () => {
    const tuned = await declare(
      'tuned',
      ['overlay2-xfs'],
      {},
      '{ volumeType: io2, iops: 8000, spot: true, instanceType: c6i.xlarge }',
    );
    const volume = tuned.mine.find((r) => r.name === 'tuned-h0-data');
    assert.deepEqual([volume?.inputs.type, volume?.inputs.iops], ['io2', 8000]);
    const instance = tuned.mine.find((r) => r.name === 'tuned-h0');
    assert.equal(instance?.inputs.instanceType, 'c6i.xlarge');
    assert.deepEqual((instance?.inputs.instanceMarketOptions as { marketType: string }).marketType, 'spot');
  });

  it('looks up the AMI of each profile from its official publisher', async () => {
    const all = await declare('every', [...PROFILE_NAMES]);
    const instances = all.mine.filter((r) => r.type === 'aws:ec2/instance:Instance');
    assert.equal(instances.length, PROFILE_NAMES.length);
    PROFILE_NAMES.forEach((profile, i) => {
      const source = AMI_SOURCES[baseImageOf(profile, hostOs(profile))];
      const instance = instances.find((r) => r.name === `every-h${i}`);
      assert.equal(instance?.inputs.ami, `ami-from-${source.owner}`, profile);
    });
    const amiCalls = cloud.invokes.filter((c) => c.token === 'aws:ec2/getAmi:getAmi');
    assert.ok(
      amiCalls.some((c) => JSON.stringify(c.inputs.filters).includes('debian-12-amd64-*')),
      "amiCalls.some((c) => JSON.stringify(c.inputs.filters).includes('debian-12-amd64-*'))",
    );
    assert.ok(
      amiCalls.some((c) => JSON.stringify(c.inputs.filters).includes('Flatcar-stable-*-hvm')),
      "amiCalls.some((c) => JSON.stringify(c.inputs.filters).includes('Flatcar-stable-*-hvm'))",
    );
    assert.deepEqual(
      all.inventory.hosts.map((h) => [h.profile, h.user]),
      PROFILE_NAMES.map((p) => [p, PROFILES[p].image === 'flatcar' ? 'core' : 'root']),
    );
  });

  it('user-data per profile: cloud-init YAML that makes its own host key, or Ignition JSON of the declared spec', async () => {
    const all = await declare('userdata', ['overlay2-ext4', 'flatcar']);
    const [debian, flatcar] = all.mine.filter((r) => r.type === 'aws:ec2/instance:Instance');
    const cloudText = String(debian?.inputs.userData);
    assert.ok(cloudText.startsWith('#cloud-config\n'), "cloudText.startsWith('#cloud-config\\n')");
    const cloud = parseYaml(cloudText) as Record<string, unknown>;
    assert.equal(cloud.ssh_keys, undefined, 'no host key in user data');
    assert.deepEqual(cloud.ssh_genkeytypes, ['ed25519']);
    assert.deepEqual(cloud.ssh, { emit_keys_to_console: true });
    assert.equal(cloud.disable_root, false);
    assert.ok((cloud.packages as string[]).includes('docker.io'), "(cloud.packages as string[]).includes('docker.io')");
    assert.ok(
      (cloud.packages as string[]).includes('thin-provisioning-tools'),
      "(cloud.packages as string[]).includes('thin-provisioning-tools')",
    );

    const ignition = ignitionSchema.parse(JSON.parse(String(flatcar?.inputs.userData)));
    assert.equal(ignition.ignition.version, IGNITION_VERSION);
    assert.equal(
      ignition.storage.files.find((f) => f.path.startsWith('/etc/ssh/')),
      undefined,
      'no host key file in Ignition',
    );
    const script = ignition.storage.files.find((f) => f.path === '/opt/layerlab/host-key-to-console');
    assert.equal(script?.mode, 0o755);
    const unit = ignition.systemd.units.find((u) => u.name === 'layerlab-host-key.service');
    assert.equal(unit?.enabled, true);
    assert.match(String(unit?.contents), /ExecStart=\/opt\/layerlab\/host-key-to-console/);
    assert.equal(ignition.passwd.users[0]?.name, 'core');
    const disabled = ignition.systemd.units.filter((u) => !u.enabled).map((u) => u.name);
    assert.deepEqual(disabled.sort(), ['docker.service', 'docker.socket'], 'docker waits for the profile, socket too');
  });

  it('tags every taggable resource with run id, owner and expiry', () => {
    const taggable = lab.mine.filter((r) => TAGGABLE.has(r.type));
    assert.ok(taggable.length >= 10, `found ${taggable.length}`);
    for (const r of taggable) {
      const tags = r.inputs.tags as Record<string, string>;
      assert.equal(tags['layerlab:run'], 'nightly-42', `${r.type} ${r.name}`);
      assert.equal(tags['layerlab:owner'], 'perf-team', `${r.type} ${r.name}`);
      assert.equal(tags['layerlab:expires'], TAGS.expiresAt, `${r.type} ${r.name}`);
      assert.equal(tags['layerlab:lab'], 'two');
    }
    const instance = lab.mine.find((r) => r.type === 'aws:ec2/instance:Instance');
    const root = instance?.inputs.rootBlockDevice as { tags: Record<string, string> };
    assert.equal(root.tags['layerlab:expires'], TAGS.expiresAt, 'root volumes too');
  });

  it('exports the inventory contract, with the private key only as a secret', async () => {
    const inv: AwsStackInventory = lab.inventory;
    assert.deepEqual(Object.keys(inv).sort(), ['expiresAt', 'hosts', 'lab', 'runId', 'target']);
    assert.equal(inv.target, 'aws');
    for (const h of inv.hosts) {
      assert.deepEqual(Object.keys(h).sort(), [
        'address',
        'dataDisk',
        'instanceId',
        'labels',
        'name',
        'port',
        'profile',
        'user',
      ]);
      assert.match(h.instanceId, /^i-0twoh\d$/, 'the instance id, for the controller to read its console');
      assert.match(h.address, /^198\.51\.100\.\d+$/);
      assert.match(h.dataDisk, /^\/dev\/disk\/by-id\/nvme-Amazon_Elastic_Block_Store_vol0abc\d{4}$/);
      assert.equal(h.port, 22);
    }
    assert.ok(!JSON.stringify(inv).includes('PRIVATE KEY'), 'no private material in the inventory');
    assert.equal(await pulumi.isSecret(lab.out.sshPrivateKey), true);
    assert.equal(await pulumi.isSecret(lab.out.inventory), false);
    assert.match(lab.key, /BEGIN OPENSSH PRIVATE KEY/);
    for (const instance of lab.mine.filter((r) => r.type === 'aws:ec2/instance:Instance')) {
      assert.ok(!String(instance.inputs.userData).includes('PRIVATE KEY'), 'user-data holds no private key');
    }
  });

  it('uses the default VPC when asked, without creating one', async () => {
    const { mine } = await declare('dflt', ['btrfs'], {}, '{ vpc: default }');
    assert.equal(mine.filter((r) => r.type === 'aws:ec2/vpc:Vpc').length, 0);
    assert.equal(mine.find((r) => r.type === 'aws:ec2/instance:Instance')?.inputs.subnetId, 'subnet-a');
  });
});

describe('finding 11: EBS encrypted, no host key in user data (the program cannot know it)', () => {
  let declared: Awaited<ReturnType<typeof declare>>;
  before(async () => {
    declared = await declare('enc', ['overlay2-xfs', 'flatcar']);
  });

  it('every EBS volume is encrypted: the data volumes and each instance root device', () => {
    const volumes = declared.mine.filter((r) => r.type === 'aws:ebs/volume:Volume');
    const instances = declared.mine.filter((r) => r.type === 'aws:ec2/instance:Instance');
    assert.equal(volumes.length, 2);
    assert.equal(instances.length, 2);
    for (const v of volumes) assert.equal(v.inputs.encrypted, true, `${v.name} encrypted`);
    for (const i of instances) {
      assert.equal((i.inputs.rootBlockDevice as { encrypted?: boolean }).encrypted, true, `${i.name} root encrypted`);
    }
  });

  it('no SSH host private key in user data, and the program makes none', () => {
    const instances = declared.mine.filter((r) => r.type === 'aws:ec2/instance:Instance');
    for (const i of instances) {
      const userData = String(i.inputs.userData);
      assert.doesNotMatch(userData, /PRIVATE KEY/, `${i.name}: user data holds no private key`);
      // Ignition carries files as base64 data URLs: look inside them too.
      for (const [, b64] of userData.matchAll(/base64,([A-Za-z0-9+/=]+)/g)) {
        assert.doesNotMatch(Buffer.from(b64 ?? '', 'base64').toString(), /PRIVATE KEY/, `${i.name}: no key in a file`);
      }
    }
    const keys = declared.mine.filter((r) => r.type === 'tls:index/privateKey:PrivateKey');
    assert.deepEqual(
      keys.map((k) => k.name),
      ['enc-operator-key'],
      'only the operator key (its public half goes to the key pair)',
    );
  });

  it('Debian hosts generate an ed25519 key and print it to the console; Flatcar gets a unit that does', () => {
    const [debian, flatcar] = declared.mine.filter((r) => r.type === 'aws:ec2/instance:Instance');
    const cloud = parseYaml(String(debian?.inputs.userData)) as Record<string, unknown>;
    assert.equal(cloud.ssh_keys, undefined, 'no ssh_keys');
    assert.deepEqual(cloud.ssh_genkeytypes, ['ed25519']);
    assert.equal(cloud.ssh_deletekeys, true, 'keys baked into the image are deleted');
    assert.deepEqual(cloud.ssh, { emit_keys_to_console: true });
    const ignition = JSON.parse(String(flatcar?.inputs.userData)) as {
      storage: { files: { path: string; contents: { source: string } }[] };
      systemd: { units: { name: string; enabled: boolean; contents?: string }[] };
    };
    assert.deepEqual(
      ignition.storage.files.filter((f) => f.path.startsWith('/etc/ssh/')),
      [],
      'no host key file in Ignition',
    );
    const script = ignition.storage.files.find((f) => f.path === '/opt/layerlab/host-key-to-console');
    const text = Buffer.from(String(script?.contents.source.split(',')[1]), 'base64').toString();
    assert.match(text, /ssh-keygen -A/);
    assert.match(
      text,
      /-----BEGIN SSH HOST KEY KEYS-----[\s\S]*ssh_host_ed25519_key\.pub[\s\S]*-----END SSH HOST KEY KEYS-----/,
    );
    assert.match(text, />\/dev\/console/);
    const unit = ignition.systemd.units.find((u) => u.name === 'layerlab-host-key.service');
    assert.equal(unit?.enabled, true);
    assert.match(String(unit?.contents), /ExecStart=\/opt\/layerlab\/host-key-to-console/);
  });

  it('the stack exports instance ids, not host keys: the program cannot know them', () => {
    for (const h of declared.inventory.hosts) {
      assert.match(h.instanceId, /^i-0/, `${h.name} has its instance id`);
      assert.equal((h as Record<string, unknown>).hostKey, undefined, `${h.name}: no host key from the program`);
    }
  });
});

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

describe('pulumi destroy can remove every lab shape', () => {
  for (const shape of SHAPES) {
    it(`${shape.spot ? 'spot' : 'on-demand'}, ${shape.profile}, vpc ${shape.vpc}`, async () => {
      const name = `${shape.spot ? 'spot' : 'od'}-${shape.profile === 'flatcar' ? 'fc' : 'deb'}-${shape.vpc}`;
      const { mine } = await declare(name, [shape.profile], {}, `{ spot: ${shape.spot}, vpc: ${shape.vpc} }`);
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
