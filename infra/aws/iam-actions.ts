/**
 * Which IAM actions each cloud call of layerlab needs: the one table behind
 * infra/aws/iam-policy.json. test/unit/infra/aws/iam-policy.test.ts finds
 * every call in the code (Pulumi resource types and data sources in infra/,
 * AWS SDK commands in lab/ and infra/, `aws` CLI commands in scripts/),
 * maps it through these tables and fails when the policy lacks an action,
 * when the policy holds one nothing needs, or when a call has no entry here.
 *
 * Adding a resource type, an SDK command or an `aws` CLI command to the
 * code: add its actions here, then to the policy, in the statement for its
 * purpose.
 */

/**
 * Per Pulumi AWS resource type (`new aws.ec2.Instance`) or data source
 * (`aws.ec2.getAmi`, `getAmiOutput` alike): the EC2 calls its create, read,
 * update and delete make, as terraform-provider-aws (which @pulumi/aws
 * wraps) implements them. Updates are included: `pulumi up` on an existing
 * stack changes tags and settings in place.
 */
export const PULUMI_TYPE_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  // Configuring the provider checks the credentials with sts:GetCallerIdentity, which no policy can deny.
  'aws.Provider': [],
  'aws.ec2.getAmi': ['ec2:DescribeImages'],
  'aws.ec2.getVpc': ['ec2:DescribeVpcs', 'ec2:DescribeVpcAttribute', 'ec2:DescribeRouteTables'],
  'aws.ec2.getSubnets': ['ec2:DescribeSubnets'],
  'aws.ec2.getSubnet': ['ec2:DescribeSubnets'],
  'aws.getAvailabilityZones': ['ec2:DescribeAvailabilityZones'],
  'aws.ec2.Instance': [
    'ec2:RunInstances',
    // Tags of the instance are given at launch; the root volume's tags are added after it (CreateTags).
    'ec2:CreateTags',
    'ec2:DeleteTags',
    'ec2:DescribeInstances',
    'ec2:DescribeInstanceTypes',
    'ec2:DescribeInstanceAttribute',
    // Read for burstable types (t2/t3) only; the schema allows them.
    'ec2:DescribeInstanceCreditSpecifications',
    'ec2:DescribeVolumes',
    // The root device name of the AMI, for rootBlockDevice.
    'ec2:DescribeImages',
    // Whether the instance's VPC is the default one (security groups by name or id).
    'ec2:DescribeVpcs',
    'ec2:DescribeTags',
    // Delete first clears disableApiTermination; updates change attributes.
    'ec2:ModifyInstanceAttribute',
    'ec2:ModifyInstanceMetadataOptions',
    'ec2:ModifyVolume',
    'ec2:DescribeVolumesModifications',
    // A changed instance type is applied with a stop and a start.
    'ec2:StopInstances',
    'ec2:StartInstances',
    'ec2:TerminateInstances',
    // `spot: true`: the first spot launch of an account creates EC2's spot service-linked role.
    'iam:CreateServiceLinkedRole',
  ],
  'aws.ebs.Volume': [
    'ec2:CreateVolume',
    'ec2:CreateTags',
    'ec2:DeleteTags',
    'ec2:DescribeVolumes',
    'ec2:ModifyVolume',
    'ec2:DescribeVolumesModifications',
    'ec2:DeleteVolume',
  ],
  'aws.ec2.VolumeAttachment': [
    'ec2:AttachVolume',
    'ec2:DescribeVolumes',
    'ec2:DescribeInstances',
    // stopInstanceBeforeDetaching stops the instance before the volume is detached.
    'ec2:StopInstances',
    'ec2:DetachVolume',
  ],
  'aws.ec2.KeyPair': [
    'ec2:ImportKeyPair',
    'ec2:CreateTags',
    'ec2:DeleteTags',
    'ec2:DescribeKeyPairs',
    'ec2:DeleteKeyPair',
  ],
  'aws.ec2.SecurityGroup': [
    'ec2:CreateSecurityGroup',
    'ec2:CreateTags',
    'ec2:DeleteTags',
    'ec2:DescribeSecurityGroups',
    // Create revokes AWS's default allow-all egress, then authorizes the declared rules.
    'ec2:AuthorizeSecurityGroupIngress',
    'ec2:AuthorizeSecurityGroupEgress',
    'ec2:RevokeSecurityGroupIngress',
    'ec2:RevokeSecurityGroupEgress',
    'ec2:UpdateSecurityGroupRuleDescriptionsIngress',
    'ec2:UpdateSecurityGroupRuleDescriptionsEgress',
    // Delete looks for network interfaces still using the group.
    'ec2:DescribeNetworkInterfaces',
    'ec2:DeleteSecurityGroup',
  ],
  'aws.ec2.Vpc': [
    'ec2:CreateVpc',
    'ec2:CreateTags',
    'ec2:DeleteTags',
    'ec2:DescribeVpcs',
    'ec2:DescribeVpcAttribute',
    'ec2:ModifyVpcAttribute',
    // Read: the VPC's main route table, default security group and network ACL.
    'ec2:DescribeRouteTables',
    'ec2:DescribeSecurityGroups',
    'ec2:DescribeNetworkAcls',
    'ec2:DeleteVpc',
  ],
  'aws.ec2.InternetGateway': [
    'ec2:CreateInternetGateway',
    'ec2:CreateTags',
    'ec2:DeleteTags',
    'ec2:DescribeInternetGateways',
    'ec2:AttachInternetGateway',
    'ec2:DetachInternetGateway',
    'ec2:DeleteInternetGateway',
  ],
  'aws.ec2.Subnet': [
    'ec2:CreateSubnet',
    'ec2:CreateTags',
    'ec2:DeleteTags',
    'ec2:DescribeSubnets',
    'ec2:ModifySubnetAttribute',
    // Delete looks for network interfaces left in the subnet.
    'ec2:DescribeNetworkInterfaces',
    'ec2:DeleteSubnet',
  ],
  'aws.ec2.RouteTable': [
    'ec2:CreateRouteTable',
    'ec2:CreateTags',
    'ec2:DeleteTags',
    'ec2:DescribeRouteTables',
    'ec2:CreateRoute',
    'ec2:ReplaceRoute',
    'ec2:DeleteRoute',
    'ec2:DeleteRouteTable',
  ],
  'aws.ec2.RouteTableAssociation': [
    'ec2:AssociateRouteTable',
    'ec2:DescribeRouteTables',
    'ec2:ReplaceRouteTableAssociation',
    'ec2:DisassociateRouteTable',
  ],
};

/** IAM prefix of each AWS SDK v3 client package the code may import. */
export const SDK_PACKAGE_PREFIX: Readonly<Record<string, string>> = {
  '@aws-sdk/client-ec2': 'ec2',
  '@aws-sdk/client-s3': 's3',
  '@aws-sdk/client-sts': 'sts',
};

/**
 * SDK commands whose IAM action is not `<prefix>:<Command>`. Anything not
 * listed maps one to one (EC2's operations are its action names).
 */
export const SDK_COMMAND_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  'sts:GetCallerIdentity': [],
  's3:HeadObject': ['s3:GetObject'],
  's3:HeadBucket': ['s3:ListBucket'],
  's3:ListObjects': ['s3:ListBucket'],
  's3:ListObjectsV2': ['s3:ListBucket'],
  's3:CopyObject': ['s3:GetObject', 's3:PutObject'],
  's3:CreateMultipartUpload': ['s3:PutObject'],
  's3:UploadPart': ['s3:PutObject'],
  's3:CompleteMultipartUpload': ['s3:PutObject'],
};

/**
 * `aws <service> <command>` in scripts/*.sh. The s3 transfer commands are
 * mapped both ways (`cp` downloads and uploads). S3 answers a missing key
 * with 404 (NoSuchKey: "no history yet") only to a caller that may list the
 * bucket; without s3:ListBucket it answers 403, which the nightly must treat
 * as a failure: so reading an object needs ListBucket too.
 */
export const CLI_COMMAND_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  's3 ls': ['s3:ListBucket'],
  // Large files go up in parts (authorized as PutObject); a failed upload aborts its parts.
  's3 cp': ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListBucket'],
  's3 mv': ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload', 's3:ListBucket'],
  's3 rm': ['s3:DeleteObject'],
  's3api head-object': ['s3:GetObject', 's3:ListBucket'],
  's3api get-object': ['s3:GetObject', 's3:ListBucket'],
  's3api put-object': ['s3:PutObject'],
  's3api copy-object': ['s3:GetObject', 's3:PutObject'],
  's3api delete-object': ['s3:DeleteObject'],
  's3api list-objects': ['s3:ListBucket'],
  's3api list-objects-v2': ['s3:ListBucket'],
  's3api head-bucket': ['s3:ListBucket'],
  'sts get-caller-identity': [],
};

/**
 * The Pulumi CLI's own calls when its state lives in S3 (the nightly
 * workflow's PULUMI_BACKEND_URL=s3://...): it reads, writes and deletes
 * checkpoints, backups and lock files under `.pulumi/`, and lists them.
 */
export const PULUMI_S3_BACKEND_ACTIONS: readonly string[] = [
  's3:ListBucket',
  's3:GetObject',
  's3:PutObject',
  's3:DeleteObject',
];
