import { asInfraError } from './infra-error.js';
import { type StackLockDeps, runUnderLock } from './stack-lock.js';

/**
 * `up --target aws`: `pulumi up` of the lab's stack through the same lock
 * handling as `down` (stack-lock.ts runUnderLock). A stack left locked by a
 * killed run of ours is cancelled and the update run; one held by anyone
 * else is an InfraError (exit 3) that names the lock and the commands to run.
 */

/** What `up` uses of a Pulumi stack (the Automation API's Stack; a fake in tests). */
export interface UpStack<R> {
  up(opts: { onOutput: (out: string) => void }): Promise<R>;
  cancel(): Promise<void>;
}

export interface StackUpDeps extends StackLockDeps {
  output(text: string): void;
}

export async function upStack<R>(name: string, stack: UpStack<R>, deps: StackUpDeps): Promise<R> {
  const result = await runUnderLock(
    name,
    {
      run: () => stack.up({ onOutput: deps.output }),
      cancel: () => stack.cancel(),
      again: 'the same `layerlab` command',
      failed: (doing, err) =>
        asInfraError(
          err,
          doing === 'run' ? `pulumi up of stack ${name}` : `pulumi cancel of the stale lock on ${name}`,
        ),
    },
    deps,
  );
  // Finished: no lock of this run is left to tell apart.
  deps.markers.clear();
  return result;
}
