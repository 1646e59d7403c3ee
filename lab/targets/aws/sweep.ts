import { InfraError } from '../../errors.js';
import { PACKAGE_ROOT } from '../../paths.js';
import { EXPIRY_TAG } from '../types.js';
import { LAB_TAG, ec2Client } from './ec2-resources.js';
import { pulumiBackendName } from './pulumi-cli.js';
import { type Backoff, defaultBackoff } from './retry.js';
import { readRunMarker, thisMachine } from './stack-lock.js';
import { teardownStack } from './stack-teardown.js';

export interface CloudFinding {
  stack: string;
  /** The lab its resources are tagged with (layerlab:lab), if any. */
  lab?: string;
  /** Earliest expiry tag among the stack's resources. */
  expiresAt?: string;
  resources: number;
  expired: boolean;
}

/** The `layerlab:lab` tag of a stack's resources (from its exported state). */
export function labOfDeployment(deployment: unknown): string | undefined {
  const resources =
    (deployment as { deployment?: { resources?: { inputs?: { tags?: Record<string, string> } }[] } }).deployment
      ?.resources ?? [];
  return resources.map((r) => r.inputs?.tags?.[LAB_TAG]).find((l): l is string => l !== undefined);
}

/** Earliest `layerlab:expires` tag of a stack's resources (from its exported state). */
export function earliestExpiry(deployment: unknown): { expiresAt?: string; resources: number } {
  const resources =
    (deployment as { deployment?: { resources?: { inputs?: { tags?: Record<string, string> } }[] } }).deployment
      ?.resources ?? [];
  const expiries = resources.flatMap((r) => {
    const tag = r.inputs?.tags?.[EXPIRY_TAG];
    return tag && !Number.isNaN(Date.parse(tag)) ? [tag] : [];
  });
  expiries.sort((a, b) => Date.parse(a) - Date.parse(b));
  return { expiresAt: expiries[0], resources: resources.length };
}

/** Every stack of this project in the logged-in backend, with its expiry. */
export async function findCloudStacks(now = Date.now()): Promise<CloudFinding[]> {
  const auto = await import('@pulumi/pulumi/automation/index.js');
  const workspace = await auto.LocalWorkspace.create({ workDir: PACKAGE_ROOT });
  const findings: CloudFinding[] = [];
  for (const summary of await workspace.listStacks()) {
    const deployment = await workspace.exportStack(summary.name);
    const { expiresAt, resources } = earliestExpiry(deployment);
    findings.push({
      stack: summary.name,
      lab: labOfDeployment(deployment),
      expiresAt,
      resources,
      expired: expiresAt !== undefined && Date.parse(expiresAt) <= now && resources > 0,
    });
  }
  return findings;
}

/**
 * Destroys an expired stack the way `down` does (stack-teardown.ts): locks
 * judged, state read back, then EC2 asked by the lab's tags in the stack's
 * own region until nothing is left. The sweeper writes no run record: the
 * lab is not this machine's to track.
 */
export async function destroyCloudStack(
  finding: CloudFinding,
  progress: (line: string) => void,
  backoff: Backoff = defaultBackoff(),
): Promise<void> {
  const auto = await import('@pulumi/pulumi/automation/index.js');
  const name = finding.stack;
  const workspace = await auto.LocalWorkspace.create({ workDir: PACKAGE_ROOT });
  const config = await workspace.getAllConfig(name);
  const region = config['aws:region']?.value ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!region) {
    throw new InfraError(
      `stack ${name} has no aws:region in its config and AWS_REGION is not set: cannot check EC2 after destroying it`,
    );
  }
  const lab = finding.lab ?? name;
  await teardownStack(lab, name, {
    selectStack: (n) => auto.LocalWorkspace.selectStack({ stackName: n, workDir: PACKAGE_ROOT }),
    ec2: () => ec2Client(region),
    backend: pulumiBackendName(),
    region,
    backoff,
    progress,
    output: (out) => progress(out.trimEnd()),
    markers: { read: () => readRunMarker(lab), write: async () => {}, clear: () => {} },
    world: thisMachine(),
  });
}
