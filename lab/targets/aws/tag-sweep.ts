import type { EC2Client } from '@aws-sdk/client-ec2';
import { InfraError } from '../../errors.js';
import { deleteTagged } from './delete-tagged.js';
import {
  EXPIRY_TAG,
  LAB_TAG,
  OWNER_TAG,
  RUN_TAG,
  type TagSelector,
  type TaggedResource,
  listTagged,
} from './ec2-resources.js';
import type { Backoff } from './retry.js';
import { verifyGone } from './verify-gone.js';

/**
 * `layerlab sweep --cloud` without Pulumi's state: the labs found in EC2 by
 * their tags (infra/tags.ts), one per lab name and run id. A lab is expired
 * only when every one of its resources carries a `layerlab:expires` that has
 * passed; one without it, or with an unreadable or future one, keeps the
 * whole lab. Nothing without layerlab's lab and run tags is ever touched.
 */

export interface TaggedLab {
  lab: string;
  run: string;
  owner?: string;
  /** The latest expiry among its resources (undefined: one has none or an unreadable one). */
  expiresAt?: string;
  expired: boolean;
  resources: TaggedResource[];
}

export function groupLabs(resources: readonly TaggedResource[], now: number): TaggedLab[] {
  const labs = new Map<string, TaggedResource[]>();
  for (const r of resources) {
    const lab = r.tags[LAB_TAG];
    const run = r.tags[RUN_TAG];
    // Without both, a resource cannot be told apart from another lab's: never swept.
    if (lab === undefined || run === undefined) continue;
    const key = JSON.stringify([lab, run]);
    labs.set(key, [...(labs.get(key) ?? []), r]);
  }
  return [...labs.values()].map((members) => {
    const first = members[0] as TaggedResource;
    const times = members.map((r) => Date.parse(r.tags[EXPIRY_TAG] ?? ''));
    const readable = times.every((t) => !Number.isNaN(t));
    const latest = readable ? Math.max(...times) : undefined;
    return {
      lab: first.tags[LAB_TAG] as string,
      run: first.tags[RUN_TAG] as string,
      owner: first.tags[OWNER_TAG],
      expiresAt: latest !== undefined ? new Date(latest).toISOString() : undefined,
      expired: latest !== undefined && latest <= now,
      resources: members,
    };
  });
}

export interface TagSweepOptions {
  dryRun?: boolean;
  now?: number;
  region?: string;
  /** Pacing of retries and of the final check (tests make it fast). */
  backoff: Backoff;
  say: (line: string) => void;
  /** Labs left alone although expired: their Pulumi stack could not be destroyed just before (it may be locked). */
  skipLabs?: ReadonlySet<string>;
}

/**
 * Lists the region's tagged labs, deletes the expired ones in dependency
 * order and verifies each is gone. Returns the number of labs that could not
 * be removed (each named with what is left).
 */
export async function sweepTaggedLabs(ec2: EC2Client, opts: TagSweepOptions): Promise<number> {
  const labs = groupLabs(await listTagged(ec2, {}, opts.backoff), opts.now ?? Date.now());
  const where = opts.region ? ` in ${opts.region}` : '';
  opts.say(`cloud (EC2 tags${where}): ${labs.length} lab(s)`);
  const deletable = (l: TaggedLab) => l.expired && !opts.skipLabs?.has(l.lab);
  for (const l of labs) {
    const verb = !l.expired
      ? 'keep'
      : opts.skipLabs?.has(l.lab)
        ? 'leave (its Pulumi stack could not be destroyed)'
        : opts.dryRun
          ? 'would delete'
          : 'delete';
    opts.say(
      `  ${verb} lab ${l.lab} run ${l.run} (owner ${l.owner ?? '?'}): ${l.resources.length} resource(s), expires ${l.expiresAt ?? 'never (a resource has no readable expiry tag)'}`,
    );
  }
  if (opts.dryRun) return 0;
  let failures = 0;
  for (const l of labs.filter(deletable)) {
    const sel: TagSelector = { lab: l.lab, run: l.run };
    const problems = await deleteTagged(ec2, l.resources, opts.backoff, (m) => opts.say(`    ${m}`));
    try {
      await verifyGone(ec2, sel, { ...opts.backoff, region: opts.region });
      opts.say(`  deleted lab ${l.lab} run ${l.run}`);
    } catch (err) {
      failures++;
      const why = problems.length ? `\n  deletions that failed:\n${problems.map((p) => `    ${p}`).join('\n')}` : '';
      opts.say(`  could not delete lab ${l.lab} run ${l.run}: ${(err as Error).message}${why}`);
      if (!(err instanceof InfraError)) throw err;
    }
  }
  return failures;
}
