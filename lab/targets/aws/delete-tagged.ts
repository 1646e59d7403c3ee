import type { EC2Client } from '@aws-sdk/client-ec2';
import { errorMessage } from '../../errors.js';
import { LAB_TAG, type ResourceType, type TaggedResource } from './ec2-resources.js';
import { type RetryOptions, deleting, retrying } from './retry.js';

/**
 * Deletes a lab's EC2 resources (found by its tags, see ec2-resources.ts)
 * in dependency order, as AWS requires it: instances (and wait until they
 * are terminated), volumes, key pairs, security groups, the subnets' route
 * table associations, subnets, route tables, internet gateways (detached
 * first), VPCs. "Not yet" answers (DependencyViolation, VolumeInUse) and
 * throttling are retried; a failure does not stop the rest, so one stuck
 * resource leaves as little as possible behind. Returns the failures;
 * verify-gone.ts then says what is really left.
 */

/** Answers that mean "a resource this one depends on is still going". */
const NOT_YET = ['DependencyViolation', 'VolumeInUse', 'IncorrectState', 'InvalidState'];

export async function deleteTagged(
  ec2: EC2Client,
  resources: readonly TaggedResource[],
  retry: RetryOptions,
  progress: (m: string) => void,
): Promise<string[]> {
  const sdk = await import('@aws-sdk/client-ec2');
  // Nothing without layerlab's tag is ever deleted, whoever built the list.
  const ours = resources.filter((r) => r.tags[LAB_TAG] !== undefined);
  const of = (type: ResourceType) => ours.filter((r) => r.type === type);
  const opts = { ...retry, retryOn: NOT_YET };
  const failures: string[] = [];
  const attempt = async (what: string, fn: () => Promise<unknown>) => {
    try {
      await fn();
      progress(`ec2: ${what}`);
    } catch (err) {
      failures.push(`${what}: ${errorMessage(err)}`);
    }
  };

  const instances = of('instance').map((r) => r.id);
  if (instances.length) {
    await attempt(`terminated ${instances.join(' ')}`, () =>
      deleting(
        'ec2 TerminateInstances',
        () => ec2.send(new sdk.TerminateInstancesCommand({ InstanceIds: instances })),
        opts,
      ),
    );
    await attempt(`instances terminated: ${instances.join(' ')}`, () => waitTerminated(ec2, instances, retry));
  }
  for (const v of of('volume')) {
    await attempt(`deleted volume ${v.id}`, () =>
      deleting(`ec2 DeleteVolume ${v.id}`, () => ec2.send(new sdk.DeleteVolumeCommand({ VolumeId: v.id })), opts),
    );
  }
  for (const k of of('key-pair')) {
    await attempt(`deleted key pair ${k.id}`, () =>
      deleting(`ec2 DeleteKeyPair ${k.id}`, () => ec2.send(new sdk.DeleteKeyPairCommand({ KeyPairId: k.id })), opts),
    );
  }
  for (const g of of('security-group')) {
    await attempt(`deleted security group ${g.id}`, () =>
      deleting(
        `ec2 DeleteSecurityGroup ${g.id}`,
        () => ec2.send(new sdk.DeleteSecurityGroupCommand({ GroupId: g.id })),
        opts,
      ),
    );
  }
  for (const t of of('route-table')) {
    for (const association of t.attachments ?? []) {
      await attempt(`disassociated ${association} from ${t.id}`, () =>
        deleting(
          `ec2 DisassociateRouteTable ${association}`,
          () => ec2.send(new sdk.DisassociateRouteTableCommand({ AssociationId: association })),
          opts,
        ),
      );
    }
  }
  for (const s of of('subnet')) {
    await attempt(`deleted subnet ${s.id}`, () =>
      deleting(`ec2 DeleteSubnet ${s.id}`, () => ec2.send(new sdk.DeleteSubnetCommand({ SubnetId: s.id })), opts),
    );
  }
  for (const t of of('route-table')) {
    await attempt(`deleted route table ${t.id}`, () =>
      deleting(
        `ec2 DeleteRouteTable ${t.id}`,
        () => ec2.send(new sdk.DeleteRouteTableCommand({ RouteTableId: t.id })),
        opts,
      ),
    );
  }
  for (const g of of('internet-gateway')) {
    for (const vpc of g.attachments ?? []) {
      await attempt(`detached ${g.id} from ${vpc}`, () =>
        deleting(
          `ec2 DetachInternetGateway ${g.id}`,
          () => ec2.send(new sdk.DetachInternetGatewayCommand({ InternetGatewayId: g.id, VpcId: vpc })),
          opts,
        ),
      );
    }
    await attempt(`deleted internet gateway ${g.id}`, () =>
      deleting(
        `ec2 DeleteInternetGateway ${g.id}`,
        () => ec2.send(new sdk.DeleteInternetGatewayCommand({ InternetGatewayId: g.id })),
        opts,
      ),
    );
  }
  for (const v of of('vpc')) {
    await attempt(`deleted vpc ${v.id}`, () =>
      deleting(`ec2 DeleteVpc ${v.id}`, () => ec2.send(new sdk.DeleteVpcCommand({ VpcId: v.id })), opts),
    );
  }
  return failures;
}

class StillTerminating extends Error {
  override name = 'IncorrectState';
}

/** Until every instance is `terminated` (or no longer listed): only then do its volumes and group come free. */
async function waitTerminated(ec2: EC2Client, ids: readonly string[], retry: RetryOptions): Promise<void> {
  const sdk = await import('@aws-sdk/client-ec2');
  await retrying(
    `waiting for ${ids.join(' ')} to terminate`,
    async () => {
      const out = await ec2.send(new sdk.DescribeInstancesCommand({ InstanceIds: [...ids] })).catch((err: Error) => {
        // All gone from the listing: that is terminated too.
        if (err.name === 'InvalidInstanceID.NotFound') return { Reservations: [] };
        throw err;
      });
      const busy = (out.Reservations ?? [])
        .flatMap((r) => r.Instances ?? [])
        .filter((i) => i.State?.Name !== 'terminated');
      if (busy.length) {
        throw new StillTerminating(`still ${busy.map((i) => `${i.InstanceId} ${i.State?.Name ?? '?'}`).join(', ')}`);
      }
    },
    { ...retry, retryOn: ['IncorrectState'] },
  );
}
