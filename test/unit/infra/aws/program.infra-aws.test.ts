/**
 * The AWS program under Pulumi's mocks: no CLI, no cloud, no network. Every
 * resource the program declares is recorded and asserted on.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import * as pulumi from '@pulumi/pulumi';
import ssh2 from 'ssh2';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { PROFILES, PROFILE_NAMES, type ProfileName, baseImageOf } from '../../../../lab/catalog.ts';
import { parseLabDefinition } from '../../../../lab/definition/load.ts';
import type { AwsStackInventory } from '../../../../lab/targets/aws/stack-inventory.ts';

interface Recorded {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
  secret: Set<string>;
}
const resources: Recorded[] = [];
const SECRET_SIG = '4dabf18193072939515e22adb298388d';

/** Mocks see secret inputs wrapped; record the value and whether it was secret. */
function unwrapSecrets(inputs: Record<string, unknown>): { inputs: Record<string, unknown>; secret: Set<string> } {
  const secret = new Set<string>();
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(inputs)) {
    if (v && typeof v === 'object' && SECRET_SIG in v) {
      secret.add(k);
      out[k] = (v as unknown as { value: unknown }).value;
    } else out[k] = v;
  }
  return { inputs: out, secret };
}
const invokes: { token: string; inputs: Record<string, unknown> }[] = [];
let volumeCounter = 0;

pulumi.runtime.setMocks(
  {
    newResource(args) {
      const { inputs, secret } = unwrapSecrets(args.inputs);
      resources.push({ type: args.type, name: args.name, inputs, secret });
      const state: Record<string, unknown> = { ...inputs };
      let id = `${args.name}-id`;
      if (args.type === 'tls:index/privateKey:PrivateKey') {
        // Real keys, so the user-data and the inventory carry real OpenSSH lines.
        const pair = ssh2.utils.generateKeyPairSync('ed25519');
        state.privateKeyOpenssh = pair.private;
        state.publicKeyOpenssh = `${pair.public}\n`;
      }
      if (args.type === 'aws:ec2/instance:Instance') {
        state.publicIp = `198.51.100.${resources.filter((r) => r.type === args.type).length}`;
        state.availabilityZone = 'eu-central-1a';
      }
      if (args.type === 'aws:ebs/volume:Volume') id = `vol-0abc${String(++volumeCounter).padStart(4, '0')}`;
      if (args.type === 'aws:ec2/keyPair:KeyPair') state.keyName = args.name;
      return { id, state };
    },
    call(args) {
      invokes.push({ token: args.token, inputs: args.inputs });
      if (args.token === 'aws:ec2/getAmi:getAmi') {
        const owners = args.inputs.owners as string[];
        return { id: `ami-from-${owners[0]}`, imageId: `ami-from-${owners[0]}` };
      }
      if (args.token === 'aws:ec2/getVpc:getVpc') return { id: 'vpc-default' };
      if (args.token === 'aws:ec2/getSubnets:getSubnets') return { ids: ['subnet-b', 'subnet-a'] };
      return {};
    },
  },
  'layerlab',
  'test',
  false,
);

const { awsLab } = await import('../../../../infra/aws/program.ts');
const { AMI_SOURCES } = await import('../../../../infra/aws/ami.ts');
const { IGNITION_VERSION } = await import('../../../../infra/aws/user-data.ts');

function resolved<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply(resolve));
}

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

async function declare(name: string, profiles: ProfileName[], extra: Partial<Parameters<typeof awsLab>[0]> = {}) {
  const lab = parseLabDefinition(labText(name, profiles), `labs/${name}.yaml`);
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
  await new Promise((r) => setTimeout(r, 50));
  const mine = resources.filter((r) => r.name.startsWith(`${name}-`) || r.name === name);
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
    const before = resources.length;
    assert.throws(() => awsLab({ ...args, sshCidrs: ['0.0.0.0/0'] }), /whole internet.*allowOpenSsh/);
    assert.throws(() => awsLab({ ...args, sshCidrs: ['::/0'] }), /whole internet/);
    assert.throws(() => awsLab({ ...args, sshCidrs: [] }), /sshCidrs is empty/);
    assert.throws(() => awsLab({ ...args, sshCidrs: ['10.0.0.300/32'] }), /"10\.0\.0\.300\/32" is not a CIDR/);
    assert.throws(() => awsLab({ ...args, sshCidrs: ['my-laptop'] }), /not a CIDR/);
    assert.equal(resources.length, before, 'nothing is declared before the check');
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
    const def = parseLabDefinition(
      labText('tuned', ['overlay2-xfs'], '{ volumeType: io2, iops: 8000, spot: true, instanceType: c6i.xlarge }'),
      'labs/tuned.yaml',
    );
    awsLab({ lab: def, tags: { ...TAGS, lab: 'tuned' }, sshCidrs: ['203.0.113.7/32'], allowOpenSsh: false });
    await new Promise((r) => setTimeout(r, 100));
    const volume = resources.find((r) => r.name === 'tuned-h0-data');
    assert.deepEqual([volume?.inputs.type, volume?.inputs.iops], ['io2', 8000]);
    const instance = resources.find((r) => r.name === 'tuned-h0');
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
    const amiCalls = invokes.filter((c) => c.token === 'aws:ec2/getAmi:getAmi');
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
      assert.match(h.instanceId, /^two-h\d-id$/, 'the instance id, for the controller to read its console');
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
    const def = parseLabDefinition(labText('dflt', ['btrfs'], '{ vpc: default }'), 'labs/dflt.yaml');
    const out = awsLab({ lab: def, tags: { ...TAGS, lab: 'dflt' }, sshCidrs: ['203.0.113.7/32'], allowOpenSsh: false });
    await resolved(out.inventory);
    await new Promise((r) => setTimeout(r, 50));
    const mine = resources.filter((r) => r.name.startsWith('dflt-'));
    assert.equal(mine.filter((r) => r.type === 'aws:ec2/vpc:Vpc').length, 0);
    assert.equal(mine.find((r) => r.type === 'aws:ec2/instance:Instance')?.inputs.subnetId, 'subnet-a');
  });
});
