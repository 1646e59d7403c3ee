import * as aws from '@pulumi/aws';
import * as pulumi from '@pulumi/pulumi';
import * as tls from '@pulumi/tls';
import { baseImageOf } from '../../lab/catalog.js';
import type { HostDefinition, LabDefinition } from '../../lab/definition/schema.js';
import type { AwsStackHost, AwsStackInventory } from '../../lab/targets/aws/stack-inventory.js';
import type { StackController } from '../../lab/targets/aws/stack-owner.js';
import { type LabTagInfo, labTags } from '../tags.js';
import { AMI_SOURCES, amiLabels, lookupAmi } from './ami.js';
import { labNetwork } from './network.js';
import { labRegion } from './region.js';
import { sshSources } from './ssh-cidrs.js';
import { debianCloudConfig, flatcarIgnition } from './user-data.js';

export interface AwsLabArgs {
  lab: LabDefinition;
  /** The lab file, named in errors. */
  labFile?: string;
  tags: LabTagInfo;
  sshCidrs: string[];
  allowOpenSsh: boolean;
  /** The stack's `aws:region` config, if set: it must agree with the lab's region. */
  stackRegion?: string;
  /** The controller whose lab it is: exported with the inventory, so that another one is refused. */
  controller?: StackController;
}

export interface AwsLab {
  /** Hosts with their instance ids; the controller pins host keys from their consoles. */
  inventory: pulumi.Output<AwsStackInventory>;
  /** The operator's private key (OpenSSH), a Pulumi secret. */
  sshPrivateKey: pulumi.Output<string>;
}

/** Attached as /dev/sdf; on Nitro instances it appears as an NVMe disk named after the volume id. */
const DATA_DEVICE_NAME = '/dev/sdf';

export function nvmeDevicePath(volumeId: string): string {
  return `/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_${volumeId.replace('-', '')}`;
}

function hostResources(
  args: AwsLabArgs,
  host: HostDefinition,
  net: ReturnType<typeof labNetwork>,
  keyPair: aws.ec2.KeyPair,
  operatorKey: tls.PrivateKey,
  provider: aws.Provider,
) {
  const settings = args.lab.target.aws;
  const image = baseImageOf(host.profile, host.os);
  const prefix = `${args.lab.name}-${host.name}`;
  const tags = (name: string) => labTags(args.tags, name);
  // No host key here: the host makes its own and the controller reads it from the console (user-data.ts).
  const userData =
    image === 'flatcar'
      ? operatorKey.publicKeyOpenssh.apply((pub) => flatcarIgnition(pub))
      : pulumi.output(debianCloudConfig(image));
  const ami = lookupAmi(image, { provider });
  const instance = new aws.ec2.Instance(
    `${prefix}`,
    {
      ami: ami.id,
      instanceType: settings.instanceType,
      subnetId: net.subnetId,
      vpcSecurityGroupIds: [net.securityGroupId],
      keyName: keyPair.keyName,
      userData,
      userDataReplaceOnChange: true,
      associatePublicIpAddress: true,
      // Encrypted explicitly (the account's default EBS key), whatever the account's default says.
      rootBlockDevice: {
        volumeSize: settings.rootGiB,
        volumeType: 'gp3',
        encrypted: true,
        deleteOnTermination: true,
        tags: tags(`${prefix}-root`),
      },
      // One-time spot, terminated on interruption: a host that AWS takes back
      // is gone, and its unfinished trials are lost as on any dead host. A
      // persistent request would start another host after `pulumi destroy`
      // terminated this one, and a stopped-and-resumed host would resume in
      // the middle of a timed trial.
      instanceMarketOptions: settings.spot
        ? {
            marketType: 'spot',
            spotOptions: { spotInstanceType: 'one-time', instanceInterruptionBehavior: 'terminate' },
          }
        : undefined,
      // Nothing may stand in the way of `pulumi destroy` (test/unit/infra/aws/destroy-rules.ts).
      disableApiTermination: false,
      metadataOptions: { httpTokens: 'required' },
      tags: { ...tags(prefix), 'layerlab:host': host.name, 'layerlab:profile': host.profile, 'layerlab:os': image },
    },
    { provider },
  );
  const volume = new aws.ebs.Volume(
    `${prefix}-data`,
    {
      availabilityZone: instance.availabilityZone,
      size: host.diskGiB,
      type: settings.volumeType,
      encrypted: true,
      iops: settings.iops,
      throughput: settings.throughput,
      tags: { ...tags(`${prefix}-data`), 'layerlab:host': host.name },
    },
    { provider },
  );
  new aws.ec2.VolumeAttachment(
    `${prefix}-data-attach`,
    {
      deviceName: DATA_DEVICE_NAME,
      volumeId: volume.id,
      instanceId: instance.id,
      // On-demand: stop the instance before detaching, a clean unmount of
      // docker's disk. A one-time spot instance cannot be stopped (EC2 refuses),
      // so destroy would fail here and leave the lab running: its volume is
      // forced off instead (the lab's data goes with the lab anyway).
      stopInstanceBeforeDetaching: !settings.spot,
      forceDetach: settings.spot,
    },
    { provider },
  );
  return pulumi.all([instance.publicIp, instance.id, volume.id, instance.ami, ami]).apply(
    ([address, instanceId, volumeId, usedAmi, foundAmi]): AwsStackHost => ({
      name: host.name,
      profile: host.profile,
      address,
      port: 22,
      user: AMI_SOURCES[image].user,
      instanceId,
      dataDisk: nvmeDevicePath(volumeId),
      labels: {
        target: 'aws',
        region: settings.region,
        instanceType: settings.instanceType,
        volumeType: settings.volumeType,
        market: settings.spot ? 'spot' : 'on-demand',
        // The image, recorded with every run: a night on a new AMI is named as an environment change.
        image,
        ...amiLabels(usedAmi, foundAmi),
      },
    }),
  );
}

/**
 * The AWS lab: network, SSH-only security group, the operator's key pair, and
 * per host an instance with an attached EBS data volume. Exports the
 * inventory; the private key only as a secret.
 */
export function awsLab(args: AwsLabArgs): AwsLab {
  // Refusals first: nothing is declared for a lab that would be refused.
  const ssh = sshSources(args.sshCidrs, args.allowOpenSsh);
  const region = labRegion(args.lab, args.labFile, args.stackRegion);
  const prefix = args.lab.name;
  const tags = (name: string) => labTags(args.tags, name);
  // Every resource and lookup goes through this provider: the hosts land in
  // the region the controller then reads consoles from and reports.
  const provider = new aws.Provider(`${prefix}-aws`, { region });
  const net = labNetwork(prefix, args.lab.target.aws.vpc, ssh, tags, provider);
  const operatorKey = new tls.PrivateKey(`${prefix}-operator-key`, { algorithm: 'ED25519' });
  const keyPair = new aws.ec2.KeyPair(
    `${prefix}-key`,
    { publicKey: operatorKey.publicKeyOpenssh, tags: tags(`${prefix}-key`) },
    { provider },
  );
  const hosts = args.lab.hosts.map((h) => hostResources(args, h, net, keyPair, operatorKey, provider));
  const inventory = pulumi.all(hosts).apply(
    (list): AwsStackInventory => ({
      target: 'aws',
      lab: args.lab.name,
      runId: args.tags.runId,
      expiresAt: args.tags.expiresAt,
      ...(args.controller ? { controller: args.controller } : {}),
      hosts: list,
    }),
  );
  return { inventory, sshPrivateKey: pulumi.secret(operatorKey.privateKeyOpenssh) };
}
