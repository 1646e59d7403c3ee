/**
 * The AWS program under Pulumi's mocks (no CLI, no cloud): each host boots
 * the Debian AMI of its own os release, with that release's packages.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as pulumi from '@pulumi/pulumi';
import { parse as parseYaml } from 'yaml';
import { parseLabDefinition } from '../../../../lab/definition/load.ts';

const instances: { name: string; inputs: Record<string, unknown> }[] = [];

pulumi.runtime.setMocks(
  {
    newResource(args) {
      if (args.type === 'aws:ec2/instance:Instance') instances.push({ name: args.name, inputs: args.inputs });
      const state: Record<string, unknown> = { ...args.inputs };
      if (args.type === 'tls:index/privateKey:PrivateKey') {
        state.privateKeyOpenssh = 'private';
        state.publicKeyOpenssh = 'ssh-ed25519 AAAA test\n';
      }
      if (args.type === 'aws:ec2/instance:Instance') state.publicIp = '198.51.100.1';
      return { id: `${args.name}-id`, state };
    },
    call(args) {
      if (args.token === 'aws:ec2/getAmi:getAmi') {
        // The AMI id names the pattern it was found by, so the test sees which release was asked for.
        const filters = args.inputs.filters as { name: string; values: string[] }[];
        const pattern = filters.find((f) => f.name === 'name')?.values[0] ?? '?';
        return { id: `ami-${pattern}`, imageId: `ami-${pattern}` };
      }
      return {};
    },
  },
  'layerlab',
  'test',
  false,
);

const { awsLab } = await import('../../../../infra/aws/program.ts');
const { amiLabels } = await import('../../../../infra/aws/ami.ts');

function resolved<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply(resolve));
}

const LAB = `name: stacks
target: { kind: aws }
hosts:
  - { name: d12, profile: overlay2-ext4 }
  - { name: d13, profile: overlay2-ext4, os: debian-13 }
  - { name: pod, profile: podman-overlay-ext4, os: debian-13 }
  - { name: fc, profile: flatcar }
scenarios: { fio: { size: 16M } }
mounts: [volume]
repetitions: 1
`;

describe('infra/aws: the AMI of each host’s os release', () => {
  it('looks up debian-12, debian-13 and Flatcar images by their own name patterns, with each release’s packages', async () => {
    const lab = parseLabDefinition(LAB, 'labs/stacks.yaml');
    const out = awsLab({
      lab,
      tags: { runId: 'r1', owner: 'me', expiresAt: '2026-12-01T06:00:00.000Z', lab: lab.name },
      sshCidrs: ['203.0.113.7/32'],
      allowOpenSsh: false,
    });
    const inventory = await resolved(out.inventory);
    const ami = (host: string) => instances.find((i) => i.name === `stacks-${host}`)?.inputs.ami;
    assert.equal(ami('d12'), 'ami-debian-12-amd64-*');
    assert.equal(ami('d13'), 'ami-debian-13-amd64-*');
    assert.equal(ami('pod'), 'ami-debian-13-amd64-*');
    assert.equal(ami('fc'), 'ami-Flatcar-stable-*-hvm');
    const packages = (host: string) =>
      (parseYaml(String(instances.find((i) => i.name === `stacks-${host}`)?.inputs.userData)) as { packages: string[] })
        .packages;
    assert.ok(packages('pod').includes('podman'), 'the debian-13 host installs podman');
    assert.ok(!packages('d12').includes('podman'), 'the debian-12 host does not');
    const tags = (host: string) =>
      instances.find((i) => i.name === `stacks-${host}`)?.inputs.tags as Record<string, string>;
    assert.equal(tags('d13')['layerlab:os'], 'debian-13');
    assert.deepEqual(
      inventory.hosts.map((h) => [h.name, h.user]),
      [
        ['d12', 'root'],
        ['d13', 'root'],
        ['pod', 'root'],
        ['fc', 'core'],
      ],
    );
  });
});

describe('infra/aws: amiLabels, the image a host runs as its inventory labels', () => {
  const found = { id: 'ami-0new', name: 'debian-12-amd64-20261120-1940', ownerId: '136693986130' };

  it('the instance’s AMI with the name and publisher the lookup found for it', () => {
    assert.deepEqual(amiLabels('ami-0new', found), {
      ami: 'ami-0new',
      amiName: 'debian-12-amd64-20261120-1940',
      amiOwner: '136693986130',
    });
  });

  it('an instance still on an older image than today’s lookup: its own id, no borrowed name', () => {
    assert.deepEqual(amiLabels('ami-0old', found), { ami: 'ami-0old' });
  });

  it('a lookup that does not say name or owner: the id alone', () => {
    assert.deepEqual(amiLabels('ami-0new', { id: 'ami-0new' }), { ami: 'ami-0new' });
  });
});
