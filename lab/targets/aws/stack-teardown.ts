import type { EC2Client } from '@aws-sdk/client-ec2';
import { InfraError, errorMessage } from '../../errors.js';
import { RUN_TAG } from './ec2-resources.js';
import type { Backoff } from './retry.js';
import { type StackLockDeps, runUnderLock } from './stack-lock.js';
import { verifyGone } from './verify-gone.js';

/**
 * `down --target aws`, trusting no single answer: the stack is read (only
 * "no such stack" means there is nothing to destroy; any other failure is an
 * InfraError), destroyed (runUnderLock, as `up` does: a lock left by a dead
 * run of ours is cancelled, any other is reported), read again (resources
 * still in the state are named), and then EC2 itself is asked, by the lab's
 * tags, until nothing is left. The stack is removed only after all of that.
 */

/** What teardown uses of a Pulumi stack (the Automation API's Stack; a fake in tests). */
export interface TeardownStack {
  destroy(opts: { onOutput: (out: string) => void }): Promise<unknown>;
  cancel(): Promise<void>;
  exportStack(): Promise<unknown>;
  workspace: { removeStack(name: string): Promise<void> };
}

export interface StackTeardownDeps extends StackLockDeps {
  /** Rejects with StackNotFoundError when the backend says there is no such stack. */
  selectStack(name: string): Promise<TeardownStack>;
  ec2(): Promise<EC2Client>;
  region: string;
  backoff: Backoff;
  output(text: string): void;
  /** Throws (UserError) when the stack, as exported, is another controller's lab (stack-owner.ts). */
  refuseOther?(deployment: unknown): void;
}

interface StateResource {
  urn?: string;
  type?: string;
  id?: string;
  inputs?: { tags?: Record<string, string> };
  outputs?: { tags?: Record<string, string> };
}

function stateResources(deployment: unknown): StateResource[] {
  return (deployment as { deployment?: { resources?: StateResource[] } })?.deployment?.resources ?? [];
}

/** Resources that cost something: not the stack itself, not provider plugins' own entries. */
function realResources(deployment: unknown): StateResource[] {
  return stateResources(deployment).filter(
    (r) => r.type !== 'pulumi:pulumi:Stack' && !r.type?.startsWith('pulumi:providers:'),
  );
}

/** The run ids the stack's resources are tagged with (what EC2 is asked about afterwards). */
function runIdsOf(deployment: unknown): string[] {
  const runs = stateResources(deployment).flatMap((r) => {
    const run = r.outputs?.tags?.[RUN_TAG] ?? r.inputs?.tags?.[RUN_TAG];
    return run ? [run] : [];
  });
  return [...new Set(runs)];
}

export function isStackNotFound(err: unknown): boolean {
  const e = err as { name?: string; message?: string; cause?: unknown };
  // The driver's boundary wraps Automation API errors in an InfraError: look through it.
  if (e?.cause !== undefined && isStackNotFound(e.cause)) return true;
  return e?.name === 'StackNotFoundError' || /no stack named .* found/.test(e?.message ?? '');
}

function unreadable(name: string, backend: string, what: string, err: unknown): InfraError {
  const state =
    what === 'read'
      ? 'Nothing was destroyed, and the lab may still be running (and costing).'
      : 'The lab may be partly destroyed, and what is left may still be costing.';
  return new InfraError(
    `cannot ${what} Pulumi stack ${name} (backend ${backend}): ${errorMessage(err).trim()}\n` +
      `  ${state} Check that you are logged in to that backend (\`pulumi whoami -v\`),\n` +
      '  that its credentials and the AWS credentials are valid, then run `layerlab down` again.',
    {},
    { cause: err },
  );
}

/** Destroys the lab's stack and proves it gone; returns what it did, throws an InfraError naming what is left. */
export async function teardownStack(lab: string, name: string, deps: StackTeardownDeps): Promise<string> {
  let stack: TeardownStack | undefined;
  try {
    stack = await deps.selectStack(name);
  } catch (err) {
    if (!isStackNotFound(err)) throw unreadable(name, deps.backend, 'read', err);
  }
  // With no state, the run id is the stack name (what infra/config.ts tags with unless layerlab:runId is set).
  let runs = [name];
  if (stack) {
    const before = await stack.exportStack().catch((err: unknown) => {
      throw unreadable(name, deps.backend, 'read', err);
    });
    // Another controller's lab is not ours to destroy: refused before anything changes.
    deps.refuseOther?.(before);
    if (runIdsOf(before).length) runs = runIdsOf(before);
    deps.progress(`pulumi: destroying stack ${name} (${realResources(before).length} resource(s))`);
    const destroying = stack;
    // A lock left by a dead run of ours is cancelled, any other reported (stack-lock.ts).
    await runUnderLock(
      name,
      {
        run: () => destroying.destroy({ onOutput: deps.output }),
        cancel: () => destroying.cancel(),
        again: '`layerlab down`',
        failed: (doing, err) =>
          unreadable(name, deps.backend, doing === 'run' ? 'destroy' : 'cancel the stale lock of', err),
      },
      deps,
    );
    const after = await stack.exportStack().catch((err: unknown) => {
      throw unreadable(name, deps.backend, 'read back', err);
    });
    const left = realResources(after);
    if (left.length) {
      throw new InfraError(
        `pulumi destroy of stack ${name} finished, but the stack still holds ${left.length} resource(s):\n` +
          left.map((r) => `  ${r.type ?? '?'} ${r.id ?? '(no id)'} ${r.urn ?? ''}`.trimEnd()).join('\n') +
          '\n  Run `layerlab down` again; if they stay, see `pulumi stack --show-urns` and delete them in the AWS console.',
      );
    }
  } else {
    deps.progress(`pulumi: no stack ${name} in backend ${deps.backend}; checking EC2 for anything left by tags`);
  }
  const ec2 = await deps.ec2();
  for (const run of runs) {
    await verifyGone(ec2, { lab, run }, { ...deps.backoff, region: deps.region, progress: deps.progress });
  }
  deps.progress(`ec2: nothing tagged layerlab:lab=${lab} layerlab:run=${runs.join(',')} is left in ${deps.region}`);
  if (stack) {
    await stack.workspace.removeStack(name).catch((err: unknown) => {
      throw unreadable(name, deps.backend, 'remove the emptied', err);
    });
  }
  deps.markers.clear();
  return stack
    ? `stack ${name} destroyed, verified empty in EC2, and removed`
    : 'nothing to destroy (no stack, nothing tagged in EC2)';
}
