import { UserError } from '../../errors.js';
import { type Controller, type ControllerRecord, describeHolder } from '../controller.js';

/**
 * Which controller's lab a Pulumi stack is. Pulumi locks a stack only while
 * an update runs; between `up` and `down` any checkout that reaches the
 * backend could update or destroy it. The controller that makes the stack
 * writes itself into the stack config (`layerlab:controller`); the program
 * exports it with the inventory (so it lives in the backend, beside the
 * state, whatever checkout reads it) and tags every EC2 resource with it.
 * `up`, `run --stack` and `down` of another controller are refused, naming
 * the holder and since when.
 */

/** The stack config key the program reads (infra/config.ts). */
export const CONTROLLER_CONFIG = 'layerlab:controller';

/** The EC2 tag naming the controller on every resource (infra/tags.ts). */
export const CONTROLLER_TAG = 'layerlab:controller';

/** What is recorded: the controller and since when it holds the stack. */
export interface StackController extends Controller {
  since: string;
}

function record(value: unknown): ControllerRecord | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  const text = (k: string) => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
  const id = text('id');
  return id ? { id, lab: text('lab'), who: text('who'), home: text('home'), since: text('since') } : undefined;
}

/** The config value for `me`: since when is kept while the stack stays `me`'s. */
export function controllerConfigValue(me: Controller, existing: string | undefined, now = new Date()): string {
  let since = now.toISOString();
  try {
    const old = record(existing ? JSON.parse(existing) : undefined);
    if (old?.id === me.id && old.since) since = old.since;
  } catch {
    // Not JSON layerlab wrote: replaced.
  }
  const value: StackController = { ...me, since };
  return JSON.stringify(value);
}

/** The config value as the program reads it (undefined when unset or not layerlab's). */
export function parseControllerConfig(value: string | undefined): StackController | undefined {
  if (!value) return undefined;
  try {
    const r = record(JSON.parse(value));
    return r?.id
      ? { id: r.id, lab: r.lab ?? '', who: r.who ?? '', home: r.home ?? '', since: r.since ?? '' }
      : undefined;
  } catch {
    return undefined;
  }
}

/** The EC2 tag value: who, where and which id, within EC2's 256 characters. */
export function controllerTagValue(c: StackController): string {
  return `${c.who} ${c.home} (${c.id}, since ${c.since})`.slice(0, 256);
}

/** The holder in a stack's outputs (`inventory.controller`), if any. */
export function outputsController(
  outputs: Record<string, { value?: unknown } | undefined>,
): ControllerRecord | undefined {
  const inventory = outputs.inventory?.value as { controller?: unknown } | undefined;
  return record(inventory?.controller);
}

/** The holder in an exported deployment: the root stack resource's outputs. */
export function deploymentController(deployment: unknown): ControllerRecord | undefined {
  const resources =
    (deployment as { deployment?: { resources?: { type?: string; outputs?: Record<string, unknown> }[] } })?.deployment
      ?.resources ?? [];
  const root = resources.find((r) => r.type === 'pulumi:pulumi:Stack');
  const inventory = root?.outputs?.inventory as { controller?: unknown } | undefined;
  return record(inventory?.controller);
}

/** Throws UserError (exit 2) when `holder` is another controller than `me`; a stack with no holder recorded is free. */
export function refuseOtherController(stack: string, holder: ControllerRecord | undefined, me: Controller): void {
  if (!holder?.id || holder.id === me.id) return;
  throw new UserError(
    `Pulumi stack ${stack} is in use by ${describeHolder(holder)}; nothing was changed.\n` +
      '  Run `layerlab down` for that lab from that controller. If that controller is gone for good, ' +
      `destroy the stack by hand (\`pulumi destroy --stack ${stack}\`, then \`pulumi stack rm ${stack}\`) and run \`layerlab sweep\` (docs/troubleshooting.md).`,
  );
}
