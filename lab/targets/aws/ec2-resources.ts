import type { EC2Client, Filter, Tag } from '@aws-sdk/client-ec2';
import { EXPIRY_TAG } from '../types.js';
import { type RetryOptions, retrying } from './retry.js';

/**
 * What layerlab's tags find in one region: every kind of EC2 resource the
 * AWS program creates (infra/aws), read through the Describe* calls. Only
 * resources that carry `layerlab:lab` are ever returned, also when the
 * endpoint ignores a filter: this list is what teardown deletes.
 */

export const LAB_TAG = 'layerlab:lab';
export const RUN_TAG = 'layerlab:run';
export const OWNER_TAG = 'layerlab:owner';
export { EXPIRY_TAG };

/** In the order they are deleted (each kind only after the kinds that depend on it). */
export const RESOURCE_TYPES = [
  'instance',
  'volume',
  'key-pair',
  'security-group',
  'subnet',
  'route-table',
  'internet-gateway',
  'vpc',
] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

export interface TaggedResource {
  type: ResourceType;
  id: string;
  tags: Record<string, string>;
  /** Instances: pending, running, shutting-down, stopped... (terminated ones are not listed). */
  state?: string;
  /** Route tables: their subnet associations (not the main one); gateways: the VPCs they are attached to. */
  attachments?: string[];
}

/** Which lab: its name, and (to tell apart two labs of one name) its run id. */
export interface TagSelector {
  lab?: string;
  run?: string;
}

function filters(sel: TagSelector): Filter[] {
  return [
    { Name: 'tag-key', Values: [LAB_TAG] },
    ...(sel.lab !== undefined ? [{ Name: `tag:${LAB_TAG}`, Values: [sel.lab] }] : []),
    ...(sel.run !== undefined ? [{ Name: `tag:${RUN_TAG}`, Values: [sel.run] }] : []),
  ];
}

function tagMap(tags: Tag[] | undefined): Record<string, string> {
  return Object.fromEntries((tags ?? []).map((t) => [t.Key ?? '', t.Value ?? '']));
}

/** Checked again here: never trust the filter alone with what is about to be deleted. */
export function matches(tags: Record<string, string>, sel: TagSelector): boolean {
  return (
    tags[LAB_TAG] !== undefined &&
    (sel.lab === undefined || tags[LAB_TAG] === sel.lab) &&
    (sel.run === undefined || tags[RUN_TAG] === sel.run)
  );
}

/** Every page of a Describe* call (NextToken), each page retried on throttling. */
async function allPages<P>(
  what: string,
  page: (token: string | undefined) => Promise<P & { NextToken?: string }>,
  retry: RetryOptions,
): Promise<P[]> {
  const pages: P[] = [];
  let token: string | undefined;
  do {
    const p = await retrying(what, () => page(token), retry);
    pages.push(p);
    token = p.NextToken;
  } while (token);
  return pages;
}

/** The lab's resources of every kind, in deletion order; terminated instances are gone and not listed. */
export async function listTagged(ec2: EC2Client, sel: TagSelector, retry: RetryOptions): Promise<TaggedResource[]> {
  const sdk = await import('@aws-sdk/client-ec2');
  const Filters = filters(sel);
  const found: TaggedResource[] = [];
  const add = (r: TaggedResource) => {
    if (matches(r.tags, sel)) found.push(r);
  };

  for (const p of await allPages(
    'ec2 DescribeInstances',
    (NextToken) => ec2.send(new sdk.DescribeInstancesCommand({ Filters, NextToken })),
    retry,
  )) {
    for (const i of (p.Reservations ?? []).flatMap((r) => r.Instances ?? [])) {
      const state = i.State?.Name;
      if (state !== 'terminated') add({ type: 'instance', id: i.InstanceId ?? '?', tags: tagMap(i.Tags), state });
    }
  }
  for (const p of await allPages(
    'ec2 DescribeVolumes',
    (NextToken) => ec2.send(new sdk.DescribeVolumesCommand({ Filters, NextToken })),
    retry,
  )) {
    for (const v of p.Volumes ?? [])
      add({ type: 'volume', id: v.VolumeId ?? '?', tags: tagMap(v.Tags), state: v.State });
  }
  // DescribeKeyPairs has no paging.
  const keys = await retrying(
    'ec2 DescribeKeyPairs',
    () => ec2.send(new sdk.DescribeKeyPairsCommand({ Filters })),
    retry,
  );
  for (const k of keys.KeyPairs ?? []) add({ type: 'key-pair', id: k.KeyPairId ?? '?', tags: tagMap(k.Tags) });
  for (const p of await allPages(
    'ec2 DescribeSecurityGroups',
    (NextToken) => ec2.send(new sdk.DescribeSecurityGroupsCommand({ Filters, NextToken })),
    retry,
  )) {
    for (const g of p.SecurityGroups ?? []) add({ type: 'security-group', id: g.GroupId ?? '?', tags: tagMap(g.Tags) });
  }
  for (const p of await allPages(
    'ec2 DescribeSubnets',
    (NextToken) => ec2.send(new sdk.DescribeSubnetsCommand({ Filters, NextToken })),
    retry,
  )) {
    for (const s of p.Subnets ?? []) add({ type: 'subnet', id: s.SubnetId ?? '?', tags: tagMap(s.Tags) });
  }
  for (const p of await allPages(
    'ec2 DescribeRouteTables',
    (NextToken) => ec2.send(new sdk.DescribeRouteTablesCommand({ Filters, NextToken })),
    retry,
  )) {
    for (const t of p.RouteTables ?? []) {
      const attachments = (t.Associations ?? [])
        .filter((a) => !a.Main && a.RouteTableAssociationId)
        .map((a) => a.RouteTableAssociationId as string);
      add({ type: 'route-table', id: t.RouteTableId ?? '?', tags: tagMap(t.Tags), attachments });
    }
  }
  for (const p of await allPages(
    'ec2 DescribeInternetGateways',
    (NextToken) => ec2.send(new sdk.DescribeInternetGatewaysCommand({ Filters, NextToken })),
    retry,
  )) {
    for (const g of p.InternetGateways ?? []) {
      const attachments = (g.Attachments ?? []).flatMap((a) => (a.VpcId ? [a.VpcId] : []));
      add({ type: 'internet-gateway', id: g.InternetGatewayId ?? '?', tags: tagMap(g.Tags), attachments });
    }
  }
  for (const p of await allPages(
    'ec2 DescribeVpcs',
    (NextToken) => ec2.send(new sdk.DescribeVpcsCommand({ Filters, NextToken })),
    retry,
  )) {
    for (const v of p.Vpcs ?? []) add({ type: 'vpc', id: v.VpcId ?? '?', tags: tagMap(v.Tags) });
  }
  return found;
}

/** One line per resource, for a person: type, id, state, and the tags that say whose it is. */
export function describeResource(r: TaggedResource): string {
  const shown = [LAB_TAG, RUN_TAG, OWNER_TAG, EXPIRY_TAG, 'Name']
    .filter((k) => r.tags[k] !== undefined)
    .map((k) => `${k}=${r.tags[k]}`)
    .join(' ');
  return `${r.type} ${r.id}${r.state ? ` (${r.state})` : ''} [${shown}]`;
}

/**
 * The region's EC2 client, with the credentials Pulumi uses (the SDK's
 * default chain). Loaded on first use: the local target never needs the SDK.
 */
export async function ec2Client(region: string): Promise<EC2Client> {
  const sdk = await import('@aws-sdk/client-ec2');
  return new sdk.EC2Client({ region });
}
