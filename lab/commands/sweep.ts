import { basename } from 'node:path';
import { InfraError, UserError, errorMessage } from '../errors.js';
import { ec2Client } from '../targets/aws/ec2-resources.js';
import { findPulumiCli, requirePulumiCli } from '../targets/aws/pulumi-cli.js';
import { defaultBackoff } from '../targets/aws/retry.js';
import { destroyCloudStack, findCloudStacks } from '../targets/aws/sweep.js';
import { sweepTaggedLabs } from '../targets/aws/tag-sweep.js';
import { staleGuestImages } from '../targets/local/image-sweep.js';
import { findLocalLeftovers, removeLocalLeftover } from '../targets/local/sweep.js';
import { removeTemplate, staleTemplates } from '../targets/local/template-store.js';
import { staleToolImages } from '../toolimages/sweep.js';
import { removeCacheEntry } from '../util/build-cache.js';
import { LockHeldError } from '../util/lock.js';
import { say } from '../util/log.js';
import { formatBytes } from '../util/size.js';

export interface SweepOptions {
  dryRun?: boolean;
  local?: boolean;
  cloud?: boolean;
  /** Remove every prepared VM template too, not only stale ones. */
  templates?: boolean;
  /** `--target aws` is `--cloud`, `--target local` is `--local`. */
  target?: string;
  /** Where to look for tagged EC2 resources (default AWS_REGION / AWS_DEFAULT_REGION). */
  region?: string;
}

/** The region the EC2 tag sweep looks in; none means it cannot run. */
function sweepRegion(opts: SweepOptions): string | undefined {
  // Bad input is exit 2 before anything starts, not an endpoint that cannot be resolved.
  if (opts.region !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d+$/.test(opts.region)) {
    throw new UserError(`--region ${opts.region}: not an AWS region name (e.g. eu-central-1)`);
  }
  return opts.region ?? (process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || undefined);
}

function targetFlags(opts: SweepOptions): SweepOptions {
  if (opts.target === undefined) return opts;
  if (opts.target === 'aws') return { ...opts, cloud: true };
  if (opts.target === 'local') return { ...opts, local: true };
  throw new UserError(`sweep --target ${opts.target}: only aws and local leave things to sweep`);
}

type Act = (what: string, remove: () => Promise<void>) => Promise<void>;

/** This machine's part: leftover labs, guest images, tool images, then templates (one on a removed image goes too). */
async function sweepLocal(opts: SweepOptions, act: Act): Promise<void> {
  const verb = opts.dryRun ? 'would remove' : 'remove';
  const found = findLocalLeftovers();
  say(`local: ${found.length ? '' : 'nothing found'}`);
  for (const f of found) say(`  ${f.remove ? verb : 'keep'} lab ${f.lab}: ${f.reason}`);
  for (const f of found.filter((x) => x.remove)) await act(`local lab ${f.lab}`, () => removeLocalLeftover(f.lab));
  const images = await staleGuestImages();
  if (images.unchecked) say(`  guest images: not checked (${images.unchecked})`);
  for (const image of images.stale) {
    say(`  ${verb} guest image ${basename(image.dir)} (${formatBytes(image.bytes)}): ${image.reason}`);
    await act(`guest image ${basename(image.dir)}`, () => removeCacheEntry(image));
  }
  const tools = await staleToolImages();
  if (tools.unchecked) say(`  tool images: not checked (${tools.unchecked})`);
  for (const image of tools.stale) {
    say(`  ${verb} tool image ${basename(image.dir)} (${formatBytes(image.bytes)}): ${image.reason}`);
    await act(`tool image ${basename(image.dir)}`, () => removeCacheEntry(image));
  }
  for (const t of staleTemplates(opts.templates)) {
    say(`  ${verb} template ${basename(t.dir)}: ${t.reason}`);
    await act(`template ${basename(t.dir)}`, () => removeTemplate(t));
  }
}

/**
 * Lists, then deletes (unless --dry-run): local labs whose owner is gone or
 * whose VMs are dead, guest images, tool images and VM templates no `up` will use again,
 * cloud stacks whose expiry tag has passed, and expired labs found in EC2 by
 * their tags (also when no stack knows them any more).
 * Returns the number of things that could not be removed.
 */
export async function sweep(options: SweepOptions): Promise<number> {
  const opts = targetFlags(options);
  const both = !opts.local && !opts.cloud;
  // The EC2 tag sweep needs no Pulumi (its point is labs whose state is lost); with neither, say what is missing.
  const region = sweepRegion(opts);
  if (opts.cloud && !region) requirePulumiCli('sweep --cloud without --region (or AWS_REGION)');
  let failures = 0;
  const act: Act = async (what, remove) => {
    if (opts.dryRun) return;
    try {
      await remove();
      say(`removed ${what}`);
    } catch (err) {
      // Taken by another layerlab process since it was listed: its lab, not a leftover.
      if (err instanceof LockHeldError) {
        say(`skipped ${what}: ${err.message}`);
        return;
      }
      failures++;
      say(`could not remove ${what}: ${errorMessage(err)}`);
    }
  };

  if (opts.local || both) await sweepLocal(opts, act);

  if (opts.cloud || both) {
    const stuckLabs = new Set<string>();
    if (!findPulumiCli()) {
      say('cloud: Pulumi stacks skipped (no Pulumi CLI on PATH)');
    } else {
      const stacks = await findCloudStacks().catch((err) => {
        throw new InfraError(`cloud: cannot list Pulumi stacks: ${errorMessage(err)} (logged in? \`pulumi login\`)`);
      });
      say(`cloud: ${stacks.length} stack(s)`);
      for (const s of stacks) {
        const state = s.expired ? (opts.dryRun ? 'would destroy' : 'destroy') : 'keep';
        say(`  ${state} stack ${s.stack}: ${s.resources} resource(s), expires ${s.expiresAt ?? 'never (no tag)'}`);
      }
      for (const s of stacks.filter((x) => x.expired)) {
        let destroyed = false;
        await act(`stack ${s.stack}`, async () => {
          await destroyCloudStack(s, (line) => say(`    ${line}`));
          destroyed = true;
        });
        // Not deleted behind Pulumi's back (its stack may be locked by a live run): a later sweep retries.
        if (!destroyed && !opts.dryRun) stuckLabs.add(s.lab ?? s.stack);
      }
    }
    failures += await sweepEc2(opts, region, stuckLabs);
  }
  return failures;
}

/**
 * Labs found in EC2 by their tags, whether or not a Pulumi stack still knows
 * them (state lost, stack removed by hand): expired ones are deleted in
 * dependency order and verified gone (tag-sweep.ts).
 */
async function sweepEc2(
  opts: SweepOptions,
  region: string | undefined,
  skipLabs: ReadonlySet<string>,
): Promise<number> {
  if (!region) {
    say('cloud (EC2 tags): skipped (no region: --region <r> or AWS_REGION)');
    return 0;
  }
  const ec2 = await ec2Client(region);
  try {
    return await sweepTaggedLabs(ec2, { dryRun: opts.dryRun, region, backoff: defaultBackoff(), say, skipLabs });
  } finally {
    ec2.destroy();
  }
}
