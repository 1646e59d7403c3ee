/**
 * A cloud that exists only as Pulumi mocks (`pulumi.runtime.setMocks`): every
 * resource the program registers and every provider function it invokes is
 * recorded with its inputs, its provider reference and the options that
 * decide whether `pulumi destroy` can remove it (protect, retainOnDelete).
 * Answers with fake ids, addresses and real SSH keys, as a cloud would.
 *
 * Must be installed before the program under test is imported (Pulumi reads
 * the monitor when a resource is registered).
 */
import * as pulumi from '@pulumi/pulumi';
import { readableKeyPair } from '../../../lab/targets/local/seed.ts';

export interface RecordedResource {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
  /** Input names that arrived as secrets. */
  secret: string[];
  /** `urn::id` of the explicit provider, or '' for the default provider. */
  provider: string;
  /** The URN the mock monitor gave the resource. */
  urn: string;
  /** The id the mock cloud answered. */
  id: string;
  protect: boolean;
  retainOnDelete: boolean;
}

export interface RecordedInvoke {
  token: string;
  inputs: Record<string, unknown>;
  provider: string;
}

export interface MockCloud {
  resources: RecordedResource[];
  invokes: RecordedInvoke[];
}

/** What the mock cloud's newest image of every name pattern is called in place of the pattern's `*`. */
export const MOCK_AMI_RELEASE = '20261120-1940';

const SECRET_SIG = '4dabf18193072939515e22adb298388d';

function unwrapSecrets(inputs: Record<string, unknown>): { inputs: Record<string, unknown>; secret: string[] } {
  const secret: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(inputs)) {
    if (v && typeof v === 'object' && SECRET_SIG in v) {
      secret.push(k);
      out[k] = (v as unknown as { value: unknown }).value;
    } else out[k] = v;
  }
  return { inputs: out, secret };
}

interface RegisterRequest {
  getType(): string;
  getName(): string;
  getProtect(): boolean | undefined;
  getRetainondelete(): boolean | undefined;
}

export interface MockCloudOptions {
  project: string;
  stack: string;
  dryRun: boolean;
  organization?: string;
  /** The availability zone instances report (the region's first). */
  zone?: string;
}

/** Installs the mocks; returns the live record of what the program declared. */
export function installMockCloud(opts: MockCloudOptions): MockCloud {
  const cloud: MockCloud = { resources: [], invokes: [] };
  const options = new Map<string, { protect: boolean; retainOnDelete: boolean }>();
  let volumes = 0;
  let addresses = 0;
  pulumi.runtime.setMocks(
    {
      newResource(args) {
        const { inputs, secret } = unwrapSecrets(args.inputs);
        const key = `${args.type}::${args.name}`;
        const urn = `urn:pulumi:${opts.stack}::${opts.project}::${args.type}::${args.name}`;
        const state: Record<string, unknown> = { ...inputs };
        let id = `${args.name}-id`;
        if (args.type === 'tls:index/privateKey:PrivateKey') {
          const pair = readableKeyPair('test');
          state.privateKeyOpenssh = pair.private;
          state.publicKeyOpenssh = `${pair.public}\n`;
        }
        if (args.type === 'aws:ec2/instance:Instance') {
          id = `i-0${args.name.replace(/[^a-z0-9]/g, '')}`;
          state.publicIp = `198.51.100.${++addresses}`;
          state.availabilityZone = opts.zone ?? 'eu-central-1a';
        }
        if (args.type === 'aws:ebs/volume:Volume') id = `vol-0abc${String(++volumes).padStart(4, '0')}`;
        if (args.type === 'aws:ec2/keyPair:KeyPair') state.keyName = args.name;
        cloud.resources.push({
          type: args.type,
          name: args.name,
          inputs,
          secret,
          provider: args.provider ?? '',
          urn,
          id,
          protect: options.get(key)?.protect ?? false,
          retainOnDelete: options.get(key)?.retainOnDelete ?? false,
        });
        return { id, state };
      },
      call(args) {
        cloud.invokes.push({ token: args.token, inputs: args.inputs, provider: args.provider ?? '' });
        if (args.token === 'aws:ec2/getAmi:getAmi') {
          // As AWS answers: the newest image matching the name pattern, with its name and publisher.
          const owners = args.inputs.owners as string[];
          const filters = args.inputs.filters as { name: string; values: string[] }[];
          const pattern = filters.find((f) => f.name === 'name')?.values[0] ?? '*';
          return {
            id: `ami-from-${owners[0]}`,
            imageId: `ami-from-${owners[0]}`,
            name: pattern.replace('*', MOCK_AMI_RELEASE),
            ownerId: owners[0],
          };
        }
        if (args.token === 'aws:ec2/getVpc:getVpc') return { id: 'vpc-default' };
        if (args.token === 'aws:ec2/getSubnets:getSubnets') return { ids: ['subnet-b', 'subnet-a'] };
        return {};
      },
    },
    opts.project,
    opts.stack,
    opts.dryRun,
    opts.organization,
  );
  // The mocks' newResource sees inputs and provider only; the options that
  // decide destroy travel in the register request, read here before it.
  const monitor = pulumi.runtime.getMonitor() as unknown as {
    registerResource(req: RegisterRequest, callback: unknown): void;
  };
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req, callback) => {
    options.set(`${req.getType()}::${req.getName()}`, {
      protect: req.getProtect() === true,
      retainOnDelete: req.getRetainondelete() === true,
    });
    register(req, callback);
  };
  return cloud;
}

/** An output's value (mocks resolve every output). */
export function resolved<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply(resolve));
}

/** Lets resources declared alongside the awaited outputs (attachments, associations) register. */
export function settle(ms = 100): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
