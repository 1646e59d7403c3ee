import { PACKAGE_ROOT } from '../../paths.js';
import { EXPIRY_TAG } from '../types.js';

export interface CloudFinding {
  stack: string;
  /** Earliest expiry tag among the stack's resources. */
  expiresAt?: string;
  resources: number;
  expired: boolean;
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
    const { expiresAt, resources } = earliestExpiry(await workspace.exportStack(summary.name));
    findings.push({
      stack: summary.name,
      expiresAt,
      resources,
      expired: expiresAt !== undefined && Date.parse(expiresAt) <= now && resources > 0,
    });
  }
  return findings;
}

export async function destroyCloudStack(name: string, progress: (line: string) => void): Promise<void> {
  const auto = await import('@pulumi/pulumi/automation/index.js');
  const stack = await auto.LocalWorkspace.selectStack({ stackName: name, workDir: PACKAGE_ROOT });
  await stack.destroy({ onOutput: (out) => progress(out.trimEnd()) });
  await stack.workspace.removeStack(name);
}
