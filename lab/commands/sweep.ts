import { basename } from 'node:path';
import { UserError, errorMessage } from '../errors.js';
import { findPulumiCli, requirePulumiCli } from '../targets/aws/pulumi-cli.js';
import { destroyCloudStack, findCloudStacks } from '../targets/aws/sweep.js';
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
 * and cloud stacks whose expiry tag has passed.
 * Returns the number of things that could not be removed.
 */
export async function sweep(opts: SweepOptions): Promise<number> {
  const both = !opts.local && !opts.cloud;
  if (opts.cloud) requirePulumiCli('sweep --cloud');
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
    if (!findPulumiCli()) {
      say('cloud: skipped (no Pulumi CLI on PATH; `layerlab sweep --cloud` insists)');
    } else {
      const stacks = await findCloudStacks().catch((err) => {
        throw new UserError(`cloud: cannot list stacks: ${errorMessage(err)} (logged in? \`pulumi login\`)`);
      });
      say(`cloud: ${stacks.length} stack(s)`);
      for (const s of stacks) {
        const state = s.expired ? (opts.dryRun ? 'would destroy' : 'destroy') : 'keep';
        say(`  ${state} stack ${s.stack}: ${s.resources} resource(s), expires ${s.expiresAt ?? 'never (no tag)'}`);
      }
      for (const s of stacks.filter((x) => x.expired)) {
        await act(`stack ${s.stack}`, () => destroyCloudStack(s.stack, (line) => say(`    ${line}`)));
      }
    }
  }
  return failures;
}
