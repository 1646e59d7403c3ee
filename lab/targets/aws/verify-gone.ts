import type { EC2Client } from '@aws-sdk/client-ec2';
import { InfraError } from '../../errors.js';
import { sleep as realSleep } from '../../util/time.js';
import { type TagSelector, type TaggedResource, describeResource, listTagged } from './ec2-resources.js';
import { type Backoff, backoffDelay } from './retry.js';

/**
 * A deletion AWS accepted is not a deletion done: an instance stays
 * `shutting-down` for a minute, and a deleted resource may still show in
 * Describe* for a while. So teardown ends with this check, which asks EC2
 * (not Pulumi's state) until nothing tagged with the lab is left, and names
 * what is when time runs out.
 */

export function selectorText(sel: TagSelector): string {
  return [
    sel.lab !== undefined ? `layerlab:lab=${sel.lab}` : '',
    sel.run !== undefined ? `layerlab:run=${sel.run}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

export function leftoverError(sel: TagSelector, left: readonly TaggedResource[], seconds: number, region?: string) {
  return new InfraError(
    `${left.length} EC2 resource(s) tagged ${selectorText(sel)}${region ? ` in ${region}` : ''} still exist ${seconds} s after teardown:\n` +
      left.map((r) => `  ${describeResource(r)}`).join('\n') +
      '\n  They may still cost money: run `layerlab down` again, or `layerlab sweep --cloud` once they have expired, or delete them in the EC2 console.',
  );
}

/** Resolves once EC2 lists no resource tagged like `sel`; throws an InfraError naming what is left after `timeoutMs`. */
export async function verifyGone(
  ec2: EC2Client,
  sel: TagSelector,
  opts: Backoff & { region?: string; progress?: (m: string) => void },
): Promise<void> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? realSleep;
  const started = now();
  for (let attempt = 1; ; attempt++) {
    const remaining = opts.timeoutMs - (now() - started);
    // Each Describe* is retried on throttling within what is left of the same deadline.
    const left = await listTagged(ec2, sel, { ...opts, timeoutMs: Math.max(remaining, 0) });
    if (!left.length) return;
    if (remaining <= 0) throw leftoverError(sel, left, Math.round((now() - started) / 1000), opts.region);
    if (attempt === 1)
      opts.progress?.(`ec2: waiting for ${left.length} resource(s) to go: ${left.map((r) => r.id).join(' ')}`);
    await sleep(backoffDelay(opts, attempt, remaining));
  }
}
