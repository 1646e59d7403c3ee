import * as aws from '@pulumi/aws';
import type * as pulumi from '@pulumi/pulumi';
import type { SshSources } from './ssh-cidrs.js';

export interface LabNetwork {
  vpcId: pulumi.Output<string>;
  subnetId: pulumi.Output<string>;
  securityGroupId: pulumi.Output<string>;
}

type Tagger = (name: string) => Record<string, string>;

/** A VPC of the lab's own: one public subnet, an internet gateway for apt and SSH. */
function ownVpc(
  prefix: string,
  tags: Tagger,
  provider: aws.Provider,
): { vpcId: pulumi.Output<string>; subnetId: pulumi.Output<string> } {
  const vpc = new aws.ec2.Vpc(
    `${prefix}-vpc`,
    {
      cidrBlock: '10.213.0.0/16',
      enableDnsHostnames: true,
      enableDnsSupport: true,
      tags: tags(`${prefix}-vpc`),
    },
    { provider },
  );
  const gateway = new aws.ec2.InternetGateway(
    `${prefix}-igw`,
    { vpcId: vpc.id, tags: tags(`${prefix}-igw`) },
    { provider },
  );
  const subnet = new aws.ec2.Subnet(
    `${prefix}-subnet`,
    {
      vpcId: vpc.id,
      cidrBlock: '10.213.1.0/24',
      mapPublicIpOnLaunch: true,
      tags: tags(`${prefix}-subnet`),
    },
    { provider },
  );
  const routes = new aws.ec2.RouteTable(
    `${prefix}-routes`,
    {
      vpcId: vpc.id,
      routes: [{ cidrBlock: '0.0.0.0/0', gatewayId: gateway.id }],
      tags: tags(`${prefix}-routes`),
    },
    { provider },
  );
  new aws.ec2.RouteTableAssociation(
    `${prefix}-routes-assoc`,
    { subnetId: subnet.id, routeTableId: routes.id },
    { provider },
  );
  return { vpcId: vpc.id, subnetId: subnet.id };
}

function defaultVpc(provider: aws.Provider): { vpcId: pulumi.Output<string>; subnetId: pulumi.Output<string> } {
  const vpc = aws.ec2.getVpcOutput({ default: true }, { provider });
  const subnets = aws.ec2.getSubnetsOutput(
    {
      filters: [
        { name: 'vpc-id', values: [vpc.id] },
        { name: 'default-for-az', values: ['true'] },
      ],
    },
    { provider },
  );
  const subnetId = subnets.ids.apply((ids) => {
    const first = [...ids].sort()[0];
    if (!first) throw new Error('the default VPC has no default subnet; set target.aws.vpc: create');
    return first;
  });
  return { vpcId: vpc.id, subnetId };
}

/**
 * Where the hosts live, and the one firewall rule that matters: SSH only
 * from the operator's addresses. Egress stays open for apt.
 */
export function labNetwork(
  prefix: string,
  mode: 'create' | 'default',
  ssh: SshSources,
  tags: Tagger,
  provider: aws.Provider,
): LabNetwork {
  const { vpcId, subnetId } = mode === 'create' ? ownVpc(prefix, tags, provider) : defaultVpc(provider);
  const group = new aws.ec2.SecurityGroup(
    `${prefix}-ssh`,
    {
      vpcId,
      description: 'layerlab: SSH from the operator only',
      ingress: [
        {
          description: 'SSH from the operator',
          protocol: 'tcp',
          fromPort: 22,
          toPort: 22,
          cidrBlocks: ssh.ipv4,
          ipv6CidrBlocks: ssh.ipv6,
        },
      ],
      egress: [{ protocol: '-1', fromPort: 0, toPort: 0, cidrBlocks: ['0.0.0.0/0'], ipv6CidrBlocks: ['::/0'] }],
      tags: tags(`${prefix}-ssh`),
    },
    { provider },
  );
  return { vpcId, subnetId, securityGroupId: group.id };
}
