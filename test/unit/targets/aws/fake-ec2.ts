/**
 * An EC2-compatible HTTP endpoint on 127.0.0.1 for tests: the Query API
 * (form-encoded POST, `Action=...&Version=2016-11-15`), XML answers in the
 * shapes EC2 documents (`xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"`,
 * `<requestId>`), errors as
 * `<Response><Errors><Error><Code/><Message/></Error></Errors><RequestID/></Response>`
 * with EC2's HTTP status (400 client errors, 503 RequestLimitExceeded), over
 * an in-memory inventory of tagged resources, with the dependency rules that
 * make teardown order matter:
 *   - DeleteVolume: VolumeInUse while attached to an instance not yet terminated;
 *   - DeleteSecurityGroup: DependencyViolation while an instance using it is not terminated;
 *   - DeleteSubnet: DependencyViolation while an instance in it is not terminated;
 *   - DeleteRouteTable: DependencyViolation while it has subnet associations;
 *   - DeleteInternetGateway: DependencyViolation while attached;
 *   - DeleteVpc: DependencyViolation while a subnet, security group, route table or attached gateway remains;
 *   - TerminateInstances: the root volume (DeleteOnTermination) goes with the instance, a data volume is detached.
 * Faults on demand (see Faults): throttling of the first k calls of an
 * action, instances that stay `shutting-down` for k describes, deleted
 * resources that still show for k describes, security groups that stay
 * busy for k deletes after their instance terminated (its network interface
 * is released late), and resources whose deletion is acknowledged but never
 * happens.
 *
 * What it does NOT emulate: request signing (any credentials pass), IAM and
 * authorization errors (no UnauthorizedOperation), regions (one inventory
 * whatever the host or region), pagination (every Describe* answers in one
 * page, never a NextToken), MaxResults, filters other than `tag:<key>`,
 * `tag-key` and id lists, DryRun, idempotency tokens, resource creation
 * (resources are seeded by the test through add*), network interfaces,
 * snapshots, spot requests, and AWS's real timings.
 */
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach } from 'node:test';
import type { EC2Client } from '@aws-sdk/client-ec2';

const NS = 'http://ec2.amazonaws.com/doc/2016-11-15/';

type Kind =
  | 'instance'
  | 'volume'
  | 'security-group'
  | 'key-pair'
  | 'subnet'
  | 'route-table'
  | 'internet-gateway'
  | 'vpc';

export interface FakeResource {
  kind: Kind;
  id: string;
  tags: Record<string, string>;
  /** Instances: pending | running | shutting-down | terminated. Volumes: available | in-use. */
  state?: string;
  vpcId?: string;
  subnetId?: string;
  groupIds?: string[];
  /** Volumes: the instance they are attached to, and whether they go with it. */
  attachedTo?: string;
  deleteOnTermination?: boolean;
  /** Route tables: subnet associations. */
  associations?: { id: string; subnetId: string }[];
  /** Internet gateways: the VPC attached. */
  attachedVpc?: string;
  keyName?: string;
  deleted?: boolean;
  /** Describes left during which a deleted resource still shows. */
  lingerLeft?: number;
  /** Describes left before a shutting-down instance is terminated. */
  shutdownLeft?: number;
  /** Deletes left during which a group is still busy after its instance terminated. */
  busyLeft?: number;
  /** Deletion acknowledged, never done. */
  survives?: boolean;
}

export interface Faults {
  /** The first k calls of an action answer RequestLimitExceeded (HTTP 503). */
  throttle?: Record<string, number>;
  /** A terminated instance stays `shutting-down` for k DescribeInstances that show it. */
  shuttingDownDescribes?: number;
  /** A deleted resource still shows in k Describe* calls. */
  lingerDescribes?: number;
  /** DeleteSecurityGroup answers DependencyViolation k more times after its instances terminated. */
  groupBusyAfterTerminate?: number;
}

export interface Call {
  action: string;
  params: Record<string, string>;
  status: number;
}

const PREFIX: Record<Kind, string> = {
  instance: 'i',
  volume: 'vol',
  'security-group': 'sg',
  'key-pair': 'key',
  subnet: 'subnet',
  'route-table': 'rtb',
  'internet-gateway': 'igw',
  vpc: 'vpc',
};

function newId(kind: Kind): string {
  return `${PREFIX[kind]}-${randomBytes(9).toString('hex').slice(0, 17)}`;
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function tagSet(tags: Record<string, string>): string {
  return `<tagSet>${Object.entries(tags)
    .map(([k, v]) => `<item><key>${esc(k)}</key><value>${esc(v)}</value></item>`)
    .join('')}</tagSet>`;
}

const STATE_CODE: Record<string, number> = {
  pending: 0,
  running: 16,
  'shutting-down': 32,
  terminated: 48,
  stopped: 80,
};

class Ec2Error extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** `Name.N` (and `Name.N.Sub`) list parameters of the Query API, in order. */
function list(params: Record<string, string>, name: string): string[] {
  return Object.keys(params)
    .filter((k) => new RegExp(`^${name}\\.\\d+$`).test(k))
    .sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()))
    .map((k) => params[k] as string);
}

function filtersOf(params: Record<string, string>): { name: string; values: string[] }[] {
  const out: { name: string; values: string[] }[] = [];
  for (let n = 1; params[`Filter.${n}.Name`] !== undefined; n++) {
    out.push({ name: params[`Filter.${n}.Name`] as string, values: list(params, `Filter.${n}.Value`) });
  }
  return out;
}

function passes(r: FakeResource, filters: { name: string; values: string[] }[]): boolean {
  return filters.every((f) => {
    if (f.name === 'tag-key') return f.values.some((v) => r.tags[v] !== undefined);
    if (f.name.startsWith('tag:')) {
      const value = r.tags[f.name.slice(4)];
      return value !== undefined && f.values.includes(value);
    }
    throw new Ec2Error('InvalidParameterValue', `The filter '${f.name}' is invalid`);
  });
}

export class FakeEc2 {
  readonly resources = new Map<string, FakeResource>();
  readonly calls: Call[] = [];
  faults: Faults = {};
  private server: Server | undefined;
  private counts = new Map<string, number>();

  /** Starts listening on 127.0.0.1 (a free port); returns the endpoint URL. */
  async start(): Promise<string> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** Empty again: no resources, no calls, no faults, and the per-action counts that throttling reads start again. */
  reset(): void {
    this.resources.clear();
    this.calls.length = 0;
    this.faults = {};
    this.counts.clear();
  }

  // --- seeding -------------------------------------------------------------

  add(kind: Kind, tags: Record<string, string>, extra: Partial<FakeResource> = {}): FakeResource {
    const r: FakeResource = { kind, id: newId(kind), tags, ...extra };
    if (kind === 'instance' && !r.state) r.state = 'running';
    if (kind === 'volume' && !r.state) r.state = r.attachedTo ? 'in-use' : 'available';
    if (kind === 'key-pair' && !r.keyName) r.keyName = `${tags.Name ?? 'key'}-${r.id.slice(4, 10)}`;
    this.resources.set(r.id, r);
    return r;
  }

  /**
   * A lab as infra/aws creates it: VPC, gateway, subnet, route table, group,
   * key pair, and per host an instance with a root and a data volume.
   */
  addLab(tags: Record<string, string>, hosts = 1): FakeResource[] {
    const vpc = this.add('vpc', tags);
    const igw = this.add('internet-gateway', tags, { attachedVpc: vpc.id });
    const subnet = this.add('subnet', tags, { vpcId: vpc.id });
    const rtb = this.add('route-table', tags, {
      vpcId: vpc.id,
      associations: [{ id: `rtbassoc-${randomBytes(8).toString('hex')}`, subnetId: subnet.id }],
    });
    const sg = this.add('security-group', tags, { vpcId: vpc.id });
    const key = this.add('key-pair', tags);
    const made = [vpc, igw, subnet, rtb, sg, key];
    for (let h = 0; h < hosts; h++) {
      const instance = this.add('instance', tags, { vpcId: vpc.id, subnetId: subnet.id, groupIds: [sg.id] });
      made.push(
        instance,
        this.add('volume', tags, { attachedTo: instance.id, deleteOnTermination: true }),
        this.add('volume', tags, { attachedTo: instance.id, deleteOnTermination: false }),
      );
    }
    return made;
  }

  /** What is still there (deleted ones and terminated instances excluded), for assertions. */
  live(): FakeResource[] {
    return [...this.resources.values()].filter((r) => !r.deleted && r.state !== 'terminated');
  }

  /** Deletes a resource as a successful `pulumi destroy` would (respecting `survives`). */
  remove(id: string): void {
    const r = this.resources.get(id);
    if (!r) return;
    if (r.kind === 'instance') this.terminate(r);
    else this.markDeleted(r);
  }

  /** Deletions of `id` are acknowledged and never happen. */
  survive(id: string): void {
    const r = this.resources.get(id);
    if (r) r.survives = true;
  }

  // --- HTTP ------------------------------------------------------------------

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const params = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      const action = params.Action ?? '?';
      const requestId = randomBytes(16)
        .toString('hex')
        .replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');
      let status = 200;
      let body: string;
      try {
        if (req.method !== 'POST') throw new Ec2Error('InvalidAction', 'only POST is emulated');
        if (params.Version !== '2016-11-15') throw new Ec2Error('InvalidParameterValue', `Version ${params.Version}`);
        const seen = (this.counts.get(action) ?? 0) + 1;
        this.counts.set(action, seen);
        if (seen <= (this.faults.throttle?.[action] ?? 0)) {
          throw new Ec2Error('RequestLimitExceeded', 'Request limit exceeded.', 503);
        }
        const inner = this.dispatch(action, params);
        body = `<?xml version="1.0" encoding="UTF-8"?>\n<${action}Response xmlns="${NS}"><requestId>${requestId}</requestId>${inner}</${action}Response>`;
      } catch (err) {
        const e = err instanceof Ec2Error ? err : new Ec2Error('InternalError', String(err), 500);
        status = e.status;
        body = `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${esc(e.code)}</Code><Message>${esc(e.message)}</Message></Error></Errors><RequestID>${requestId}</RequestID></Response>`;
      }
      this.calls.push({ action, params, status });
      // EC2 names the request in a header too; the SDK reads it from there ($metadata.requestId).
      res.writeHead(status, { 'content-type': 'text/xml;charset=UTF-8', 'x-amzn-requestid': requestId });
      res.end(body);
    });
  }

  private dispatch(action: string, p: Record<string, string>): string {
    switch (action) {
      case 'DescribeInstances':
        return this.describeInstances(p);
      case 'DescribeVolumes':
        return `<volumeSet>${this.describe('volume', p, 'VolumeId')
          .map(
            (v) =>
              `<item><volumeId>${v.id}</volumeId><size>8</size><availabilityZone>us-east-1a</availabilityZone><status>${v.state}</status>${
                v.attachedTo
                  ? `<attachmentSet><item><volumeId>${v.id}</volumeId><instanceId>${v.attachedTo}</instanceId><device>/dev/sdf</device><status>attached</status><deleteOnTermination>${!!v.deleteOnTermination}</deleteOnTermination></item></attachmentSet>`
                  : '<attachmentSet/>'
              }${tagSet(v.tags)}</item>`,
          )
          .join('')}</volumeSet>`;
      case 'DescribeSecurityGroups':
        return `<securityGroupInfo>${this.describe('security-group', p, 'GroupId')
          .map(
            (g) =>
              `<item><ownerId>111122223333</ownerId><groupId>${g.id}</groupId><groupName>${esc(g.tags.Name ?? g.id)}</groupName><groupDescription>lab</groupDescription><vpcId>${g.vpcId ?? ''}</vpcId>${tagSet(g.tags)}</item>`,
          )
          .join('')}</securityGroupInfo>`;
      case 'DescribeKeyPairs':
        return `<keySet>${this.describe('key-pair', p, 'KeyPairId')
          .map(
            (k) =>
              `<item><keyPairId>${k.id}</keyPairId><keyName>${esc(k.keyName ?? '')}</keyName><keyType>ed25519</keyType>${tagSet(k.tags)}</item>`,
          )
          .join('')}</keySet>`;
      case 'DescribeSubnets':
        return `<subnetSet>${this.describe('subnet', p, 'SubnetId')
          .map(
            (s) =>
              `<item><subnetId>${s.id}</subnetId><state>available</state><vpcId>${s.vpcId ?? ''}</vpcId><cidrBlock>10.0.1.0/24</cidrBlock>${tagSet(s.tags)}</item>`,
          )
          .join('')}</subnetSet>`;
      case 'DescribeRouteTables':
        return `<routeTableSet>${this.describe('route-table', p, 'RouteTableId')
          .map(
            (t) =>
              `<item><routeTableId>${t.id}</routeTableId><vpcId>${t.vpcId ?? ''}</vpcId><associationSet>${(
                t.associations ?? []
              )
                .map(
                  (a) =>
                    `<item><routeTableAssociationId>${a.id}</routeTableAssociationId><routeTableId>${t.id}</routeTableId><subnetId>${a.subnetId}</subnetId><main>false</main></item>`,
                )
                .join('')}</associationSet>${tagSet(t.tags)}</item>`,
          )
          .join('')}</routeTableSet>`;
      case 'DescribeInternetGateways':
        return `<internetGatewaySet>${this.describe('internet-gateway', p, 'InternetGatewayId')
          .map(
            (g) =>
              `<item><internetGatewayId>${g.id}</internetGatewayId><attachmentSet>${g.attachedVpc ? `<item><vpcId>${g.attachedVpc}</vpcId><state>available</state></item>` : ''}</attachmentSet>${tagSet(g.tags)}</item>`,
          )
          .join('')}</internetGatewaySet>`;
      case 'DescribeVpcs':
        return `<vpcSet>${this.describe('vpc', p, 'VpcId')
          .map(
            (v) =>
              `<item><vpcId>${v.id}</vpcId><state>available</state><cidrBlock>10.0.0.0/16</cidrBlock>${tagSet(v.tags)}</item>`,
          )
          .join('')}</vpcSet>`;
      case 'TerminateInstances':
        return this.terminateInstances(p);
      case 'DeleteVolume':
        return this.deleteVolume(p);
      case 'DeleteKeyPair':
        return this.deleteKeyPair(p);
      case 'DeleteSecurityGroup':
        return this.deleteSecurityGroup(p);
      case 'DisassociateRouteTable':
        return this.disassociate(p);
      case 'DeleteSubnet':
        return this.deleteSubnet(p);
      case 'DeleteRouteTable':
        return this.deleteRouteTable(p);
      case 'DetachInternetGateway':
        return this.detachGateway(p);
      case 'DeleteInternetGateway':
        return this.deleteGateway(p);
      case 'DeleteVpc':
        return this.deleteVpc(p);
      default:
        throw new Ec2Error('InvalidAction', `The action ${action} is not valid for this web service.`);
    }
  }

  // --- reads -------------------------------------------------------------------

  /** Resources of a kind a Describe* shows: live ones, and deleted ones still lingering (each showing counts). */
  private describe(kind: Kind, p: Record<string, string>, idParam: string): FakeResource[] {
    const ids = list(p, idParam);
    const filters = filtersOf(p);
    const shown: FakeResource[] = [];
    for (const r of this.resources.values()) {
      if (r.kind !== kind || (ids.length && !ids.includes(r.id)) || !passes(r, filters)) continue;
      if (r.deleted) {
        if (!r.lingerLeft) continue;
        r.lingerLeft--;
      }
      shown.push(r);
    }
    return shown;
  }

  private describeInstances(p: Record<string, string>): string {
    const ids = list(p, 'InstanceId');
    const unknown = ids.filter((id) => this.resources.get(id)?.kind !== 'instance');
    if (unknown.length) {
      throw new Ec2Error('InvalidInstanceID.NotFound', `The instance IDs '${unknown.join(', ')}' do not exist`);
    }
    const shown = this.describe('instance', p, 'InstanceId');
    for (const i of shown) {
      if (i.state !== 'shutting-down' || i.survives) continue;
      if (i.shutdownLeft) i.shutdownLeft--;
      else this.finishTermination(i);
    }
    return `<reservationSet>${shown
      .map(
        (i) =>
          `<item><reservationId>r-${i.id.slice(2)}</reservationId><ownerId>111122223333</ownerId><groupSet/><instancesSet><item><instanceId>${i.id}</instanceId><imageId>ami-0123456789abcdef0</imageId><instanceState><code>${STATE_CODE[i.state ?? 'running']}</code><name>${i.state}</name></instanceState><instanceType>m6i.large</instanceType>${i.subnetId ? `<subnetId>${i.subnetId}</subnetId>` : ''}${i.vpcId ? `<vpcId>${i.vpcId}</vpcId>` : ''}<groupSet>${(i.groupIds ?? []).map((g) => `<item><groupId>${g}</groupId></item>`).join('')}</groupSet>${tagSet(i.tags)}</item></instancesSet></item>`,
      )
      .join('')}</reservationSet>`;
  }

  // --- writes ------------------------------------------------------------------

  private need(kind: Kind, id: string | undefined, notFound: string): FakeResource {
    const r = id ? this.resources.get(id) : undefined;
    if (!r || r.kind !== kind || r.deleted) throw new Ec2Error(notFound, `The ${kind} ID '${id}' does not exist`);
    return r;
  }

  private markDeleted(r: FakeResource): void {
    if (r.survives) return;
    r.deleted = true;
    r.lingerLeft = this.faults.lingerDescribes ?? 0;
  }

  private terminate(i: FakeResource): void {
    if (i.state === 'terminated' || i.state === 'shutting-down') return;
    i.state = 'shutting-down';
    i.shutdownLeft = this.faults.shuttingDownDescribes ?? 0;
    if (!i.shutdownLeft && !i.survives) this.finishTermination(i);
  }

  private finishTermination(i: FakeResource): void {
    i.state = 'terminated';
    for (const v of this.resources.values()) {
      if (v.kind !== 'volume' || v.attachedTo !== i.id) continue;
      v.attachedTo = undefined;
      v.state = 'available';
      if (v.deleteOnTermination) this.markDeleted(v);
    }
    for (const g of i.groupIds ?? []) {
      const group = this.resources.get(g);
      if (group) group.busyLeft = this.faults.groupBusyAfterTerminate ?? 0;
    }
  }

  private terminateInstances(p: Record<string, string>): string {
    const ids = list(p, 'InstanceId');
    const found = ids.map((id) => this.resources.get(id));
    const missing = ids.filter((_, n) => found[n]?.kind !== 'instance');
    if (missing.length) {
      throw new Ec2Error('InvalidInstanceID.NotFound', `The instance IDs '${missing.join(', ')}' do not exist`);
    }
    const items = (found as FakeResource[]).map((i) => {
      const before = i.state ?? 'running';
      this.terminate(i);
      return `<item><instanceId>${i.id}</instanceId><currentState><code>${STATE_CODE[i.state ?? 'running']}</code><name>${i.state}</name></currentState><previousState><code>${STATE_CODE[before]}</code><name>${before}</name></previousState></item>`;
    });
    return `<instancesSet>${items.join('')}</instancesSet>`;
  }

  private busyInstances(test: (i: FakeResource) => boolean): FakeResource[] {
    return [...this.resources.values()].filter((i) => i.kind === 'instance' && i.state !== 'terminated' && test(i));
  }

  private deleteVolume(p: Record<string, string>): string {
    const v = this.need('volume', p.VolumeId, 'InvalidVolume.NotFound');
    if (v.attachedTo && this.resources.get(v.attachedTo)?.state !== 'terminated') {
      throw new Ec2Error('VolumeInUse', `Volume ${v.id} is currently attached to ${v.attachedTo}`);
    }
    this.markDeleted(v);
    return '<return>true</return>';
  }

  private deleteKeyPair(p: Record<string, string>): string {
    // EC2 answers true even for a key pair that does not exist.
    const k = [...this.resources.values()].find(
      (r) => r.kind === 'key-pair' && !r.deleted && (r.id === p.KeyPairId || r.keyName === p.KeyName),
    );
    if (k) this.markDeleted(k);
    return `<return>true</return>${k ? `<keyPairId>${k.id}</keyPairId>` : ''}`;
  }

  private deleteSecurityGroup(p: Record<string, string>): string {
    const g = this.need('security-group', p.GroupId, 'InvalidGroup.NotFound');
    const users = this.busyInstances((i) => !!i.groupIds?.includes(g.id));
    if (users.length || g.busyLeft) {
      if (!users.length && g.busyLeft) g.busyLeft--;
      throw new Ec2Error('DependencyViolation', `resource ${g.id} has a dependent object`);
    }
    this.markDeleted(g);
    return `<return>true</return><groupId>${g.id}</groupId>`;
  }

  private disassociate(p: Record<string, string>): string {
    const t = [...this.resources.values()].find(
      (r) => r.kind === 'route-table' && r.associations?.some((a) => a.id === p.AssociationId),
    );
    if (!t)
      throw new Ec2Error('InvalidAssociationID.NotFound', `The association ID '${p.AssociationId}' does not exist`);
    t.associations = t.associations?.filter((a) => a.id !== p.AssociationId);
    return '<return>true</return>';
  }

  private deleteSubnet(p: Record<string, string>): string {
    const s = this.need('subnet', p.SubnetId, 'InvalidSubnetID.NotFound');
    if (this.busyInstances((i) => i.subnetId === s.id).length) {
      throw new Ec2Error('DependencyViolation', `The subnet '${s.id}' has dependencies and cannot be deleted.`);
    }
    this.markDeleted(s);
    return '<return>true</return>';
  }

  private deleteRouteTable(p: Record<string, string>): string {
    const t = this.need('route-table', p.RouteTableId, 'InvalidRouteTableID.NotFound');
    if (t.associations?.length) {
      throw new Ec2Error('DependencyViolation', `The routeTable '${t.id}' has dependencies and cannot be deleted.`);
    }
    this.markDeleted(t);
    return '<return>true</return>';
  }

  private detachGateway(p: Record<string, string>): string {
    const g = this.need('internet-gateway', p.InternetGatewayId, 'InvalidInternetGatewayID.NotFound');
    if (g.attachedVpc !== p.VpcId) {
      throw new Ec2Error('Gateway.NotAttached', `resource ${g.id} is not attached to network ${p.VpcId}`);
    }
    if (this.busyInstances((i) => i.vpcId === p.VpcId).length) {
      // EC2 refuses while mapped public addresses remain in the VPC.
      throw new Ec2Error('DependencyViolation', `Network ${p.VpcId} has some mapped public address(es).`);
    }
    g.attachedVpc = undefined;
    return '<return>true</return>';
  }

  private deleteGateway(p: Record<string, string>): string {
    const g = this.need('internet-gateway', p.InternetGatewayId, 'InvalidInternetGatewayID.NotFound');
    if (g.attachedVpc) {
      throw new Ec2Error(
        'DependencyViolation',
        `The internetGateway '${g.id}' has dependencies and cannot be deleted.`,
      );
    }
    this.markDeleted(g);
    return '<return>true</return>';
  }

  private deleteVpc(p: Record<string, string>): string {
    const v = this.need('vpc', p.VpcId, 'InvalidVpcID.NotFound');
    const deps = [...this.resources.values()].filter(
      (r) =>
        !r.deleted &&
        ((['subnet', 'security-group', 'route-table'].includes(r.kind) && r.vpcId === v.id) ||
          (r.kind === 'internet-gateway' && r.attachedVpc === v.id)),
    );
    if (deps.length) {
      throw new Ec2Error('DependencyViolation', `The vpc '${v.id}' has dependencies and cannot be deleted.`);
    }
    this.markDeleted(v);
    return '<return>true</return>';
  }
}

/** An EC2 client of the SDK pointed at the fake: fake credentials, no SDK retries (the code under test retries). */
export async function fakeEc2Client(endpoint: string) {
  const sdk = await import('@aws-sdk/client-ec2');
  return new sdk.EC2Client({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'AKIDFAKE', secretAccessKey: 'fake-secret' },
    maxAttempts: 1,
  });
}

/** Backoff for tests: real (tiny) waits, bounded well under a test's timeout. */
export const FAST_BACKOFF = { timeoutMs: 5_000, baseDelayMs: 1, maxDelayMs: 20 };

/** An expiry far in the future: a lab that is not expired. */
export const FUTURE = '2999-01-01T00:00:00.000Z';

/** The tags infra/aws puts on every resource of a lab (Name `<lab>-x`, owner ci). */
export function labTags(lab: string, run: string, expires = FUTURE): Record<string, string> {
  return {
    Name: `${lab}-x`,
    'layerlab:lab': lab,
    'layerlab:run': run,
    'layerlab:owner': 'ci',
    'layerlab:expires': expires,
  };
}

/** A fake EC2 for the tests of one describe (or file), with its endpoint and an SDK client pointed at it. */
export interface FakeEc2Fixture {
  fake: FakeEc2;
  endpoint: string;
  ec2: EC2Client;
}

/**
 * Registers, in the calling describe or file, a FakeEc2 started before its
 * tests, reset before each and stopped after; endpoint and ec2 are set once
 * it has started.
 */
export function useFakeEc2(): FakeEc2Fixture {
  const fixture = { fake: new FakeEc2(), endpoint: '', ec2: undefined as unknown as EC2Client };
  before(async () => {
    fixture.endpoint = await fixture.fake.start();
    fixture.ec2 = await fakeEc2Client(fixture.endpoint);
  });
  after(async () => {
    fixture.ec2.destroy();
    await fixture.fake.stop();
  });
  beforeEach(() => fixture.fake.reset());
  return fixture;
}
