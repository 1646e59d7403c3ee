import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import type { ConfigMap, Stack } from '@pulumi/pulumi/automation/index.js';
import { sshSources } from '../../../infra/aws/ssh-cidrs.js';
import type { LabDefinition } from '../../definition/schema.js';
import { LabError, UserError } from '../../errors.js';
import { PACKAGE_ROOT, labStateDir, removeLabStateDir } from '../../paths.js';
import { hostKeyBlob } from '../../ssh/transport.js';
import { writeFileAtomic, writeSecret } from '../../util/files.js';
import { type Controller, thisController } from '../controller.js';
import {
  type ProvisionHooks,
  type TargetDriver,
  type TargetOptions,
  downByDefinitionHint,
  unprepared,
} from '../driver.js';
import { type Inventory, defaultExpiry } from '../types.js';
import { type ConsoleReader, waitForHostKey } from './console-host-key.js';
import { ec2ConsoleReader } from './ec2-console.js';
import { ec2Client } from './ec2-resources.js';
import { atCloudBoundary } from './infra-error.js';
import { pulumiBackendName, requirePulumiCli } from './pulumi-cli.js';
import { defaultBackoff } from './retry.js';
import type { AwsStackInventory } from './stack-inventory.js';
import { type StackLockDeps, clearRunMarker, readRunMarker, thisMachine, writeRunMarker } from './stack-lock.js';
import {
  CONTROLLER_CONFIG,
  controllerConfigValue,
  deploymentController,
  outputsController,
  refuseOtherController,
} from './stack-owner.js';
import { teardownStack } from './stack-teardown.js';
import { upStack } from './stack-up.js';

function savedDir(lab: string): string {
  return join(labStateDir(lab), 'aws');
}

function stackName(lab: LabDefinition, opts: TargetOptions): string {
  return opts.stack ?? lab.name;
}

/** Loaded only when a cloud command runs: the SDK is large and the local target never needs it. */
async function selectStack(name: string, create: boolean): Promise<Stack> {
  const auto = await import('@pulumi/pulumi/automation/index.js');
  const args = { stackName: name, workDir: PACKAGE_ROOT };
  return atCloudBoundary(`pulumi: selecting stack ${name}`, () =>
    create ? auto.LocalWorkspace.createOrSelectStack(args) : auto.LocalWorkspace.selectStack(args),
  );
}

/**
 * How `up` and `down` take the stack (stack-lock.ts runUnderLock): this
 * lab's run record, this machine, the backend as messages name it.
 */
function stackLockDeps(lab: string, stack: string, progress: (message: string) => void): StackLockDeps {
  return {
    backend: pulumiBackendName(),
    progress,
    markers: {
      read: () => readRunMarker(lab),
      write: () => writeRunMarker(lab, stack),
      clear: () => clearRunMarker(lab),
    },
    world: thisMachine(),
  };
}

/** How long a new host may take to print its host key: it comes at the end of cloud-init (after apt). */
const HOST_KEY_TIMEOUT_MS = 20 * 60_000;
const HOST_KEY_POLL_MS = 10_000;

export interface PinningOptions {
  /** Reads an instance's console (EC2 GetConsoleOutput; a fake in tests). */
  readConsole: ConsoleReader;
  progress(message: string): void;
  timeoutMs?: number;
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** Host keys pinned so far, by instance id: a host's key is read from its console once, then kept. */
function pinsFile(lab: string): string {
  return join(savedDir(lab), 'host-keys.json');
}

function readPins(lab: string): Record<string, string> {
  const file = pinsFile(lab);
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch (err) {
    throw new LabError(
      `${file}: not the JSON layerlab wrote (${(err as Error).message}); delete it to re-read the host keys`,
    );
  }
}

/** The fingerprint ssh-keygen -l shows, to compare with the console's own fingerprint block. */
function fingerprint(hostKey: string): string {
  return `SHA256:${createHash('sha256').update(hostKeyBlob(hostKey)).digest('base64').replace(/=+$/, '')}`;
}

/**
 * The stack's outputs as an inventory, every host key pinned from the host's
 * own console before anything connects to it; the operator key goes to a
 * 0600 file beside it.
 */
export async function inventoryFromStack(
  lab: string,
  outputs: Record<string, { value: unknown }>,
  pinning: PinningOptions,
): Promise<Inventory> {
  const stackInventory = outputs.inventory?.value as AwsStackInventory | undefined;
  const key = outputs.sshPrivateKey?.value;
  if (!stackInventory?.hosts || typeof key !== 'string') {
    throw new LabError('the stack has no inventory/sshPrivateKey outputs; was it created by infra/ (Pulumi.yaml)?');
  }
  const missingId = stackInventory.hosts.find((h) => typeof h.instanceId !== 'string' || !h.instanceId);
  if (missingId) {
    throw new LabError(
      `the stack's inventory has no instance id for host ${missingId.name} (made by an older layerlab, which put host keys in user data); run \`layerlab up --target aws\` again to replace its hosts`,
    );
  }
  const keyPath = join(savedDir(lab), 'operator_key');
  await writeSecret(keyPath, key);
  const known = readPins(lab);
  const pins: Record<string, string> = {};
  const hosts = await Promise.all(
    stackInventory.hosts.map(async ({ instanceId, ...h }) => {
      let hostKey = known[instanceId];
      if (!hostKey) {
        pinning.progress(`${h.name}: waiting for its SSH host key on the serial console of ${instanceId}`);
        hostKey = await waitForHostKey({
          host: h.name,
          instanceId,
          read: pinning.readConsole,
          timeoutMs: pinning.timeoutMs ?? HOST_KEY_TIMEOUT_MS,
          pollMs: pinning.pollMs ?? HOST_KEY_POLL_MS,
          sleep: pinning.sleep,
        });
        pinning.progress(`${h.name}: host key pinned (${fingerprint(hostKey)})`);
      }
      pins[instanceId] = hostKey;
      return { ...h, hostKey, privateKeyPath: keyPath };
    }),
  );
  // Only the current instances: a replaced host's old key must not linger.
  await writeFileAtomic(pinsFile(lab), `${JSON.stringify(pins, null, 2)}\n`);
  const inventory: Inventory = { target: 'aws', hosts };
  await writeFileAtomic(join(savedDir(lab), 'inventory.json'), `${JSON.stringify(inventory, null, 2)}\n`);
  return inventory;
}

function operatorCidrs(opts: TargetOptions): string[] {
  return opts.sshCidrs?.length ? opts.sshCidrs : (process.env.LAYERLAB_SSH_CIDRS ?? '').split(/[\s,]+/).filter(Boolean);
}

/** The CLI's opt-in to SSH from (nearly) everywhere; the stack config gets the same value. */
function allowOpenSsh(): boolean {
  return process.env.LAYERLAB_ALLOW_OPEN_SSH === 'true';
}

/**
 * The same check the Pulumi program makes, run before anything starts so that
 * a CIDR that opens SSH to the internet is exit 2, not a failed `pulumi up`.
 */
function checkSshCidrs(cidrs: string[]): void {
  if (!cidrs.length) return;
  try {
    sshSources(cidrs, allowOpenSsh());
  } catch (err) {
    throw new UserError(`--ssh-cidr: ${(err as Error).message}`);
  }
}

/**
 * The stack config `layerlab up --target aws` writes before `up`: the keys the
 * plain-Pulumi steps set by hand, the lab file absolute (the program runs in
 * infra/, see infra/project-root.ts), and the controller whose lab it is
 * (stack-owner.ts).
 */
export function awsStackConfig(labFile: string, cidrs: string[], existing: ConfigMap, me: Controller): ConfigMap {
  return {
    [CONTROLLER_CONFIG]: { value: controllerConfigValue(me, existing[CONTROLLER_CONFIG]?.value) },
    // No aws:region: the program takes the region from the lab file alone (infra/aws/region.ts).
    'layerlab:lab': { value: resolve(labFile) },
    // The CLI's CIDRs come with the CLI's opt-in (or its absence), so both checks agree.
    ...(cidrs.length
      ? {
          'layerlab:sshCidrs': { value: JSON.stringify(cidrs) },
          'layerlab:allowOpenSsh': { value: String(allowOpenSsh()) },
        }
      : {}),
    // Kept from the first up: a later up must not extend or shorten the lease silently.
    ...(existing['layerlab:expiresAt'] ? {} : { 'layerlab:expiresAt': { value: defaultExpiry() } }),
    ...(existing['layerlab:owner']
      ? {}
      : { 'layerlab:owner': { value: process.env.GITHUB_ACTOR ?? userInfo().username } }),
  };
}

/**
 * EC2 hosts from the Pulumi program in infra/ (the same one `pulumi up`
 * runs), driven through the Automation API.
 */
export const awsDriver: TargetDriver = {
  kind: 'aws',
  async preflight(_lab, opts) {
    // Bad input first: it is refused the same way whether or not Pulumi is installed.
    checkSshCidrs(operatorCidrs(opts));
    requirePulumiCli('target aws');
    if (opts.stack === undefined && !operatorCidrs(opts).length) {
      throw new UserError(
        'target aws needs the address(es) allowed to reach SSH: --ssh-cidr <your-ip>/32 (or LAYERLAB_SSH_CIDRS)',
      );
    }
  },
  async provision(lab, labFile, opts, hooks: ProvisionHooks) {
    // Preflight said so already; a caller that skipped it still gets the message, not a spawn error.
    requirePulumiCli('target aws');
    const name = stackName(lab, opts);
    hooks.progress(`pulumi: stack ${name} (program infra/, region ${lab.target.aws.region})`);
    const stack = await selectStack(name, true);
    // The backend says whose lab the stack is; another controller's is refused before anything changes.
    const me = thisController(lab.name);
    const outputs = await atCloudBoundary(`pulumi: reading the outputs of stack ${name}`, () => stack.outputs());
    refuseOtherController(name, outputsController(outputs), me);
    await stack.setAllConfig(awsStackConfig(labFile, operatorCidrs(opts), await stack.getAllConfig(), me));
    // A lock left by a killed run of ours is cancelled; any other is reported (stack-up.ts).
    const result = await upStack(name, stack, {
      ...stackLockDeps(lab.name, name, hooks.progress),
      output: (out) => hooks.log.output('pulumi', out),
    });
    hooks.progress(`pulumi: ${JSON.stringify(result.summary.resourceChanges ?? {})}`);
    const pinning = { readConsole: ec2ConsoleReader(lab.target.aws.region), progress: hooks.progress };
    return unprepared(await inventoryFromStack(lab.name, result.outputs, pinning));
  },
  async attach(lab, opts) {
    if (opts.stack !== undefined) {
      requirePulumiCli('--stack');
      const stack = await selectStack(opts.stack, false);
      const outputs = await atCloudBoundary(`pulumi: reading the outputs of stack ${opts.stack}`, () =>
        stack.outputs(),
      );
      refuseOtherController(opts.stack, outputsController(outputs), thisController(lab.name));
      const pinning = {
        readConsole: ec2ConsoleReader(lab.target.aws.region),
        progress: (m: string) => process.stderr.write(`${m}\n`),
      };
      return unprepared(await inventoryFromStack(lab.name, outputs, pinning));
    }
    const file = join(savedDir(lab.name), 'inventory.json');
    if (!existsSync(file)) {
      throw new LabError(
        `lab ${lab.name} has no AWS inventory here; run \`layerlab up --target aws --lab <file>\`, or pass --stack <name> for a stack made with \`pulumi up\``,
      );
    }
    return unprepared(JSON.parse(readFileSync(file, 'utf8')) as Inventory);
  },
  async down(lab, opts, progress) {
    requirePulumiCli('target aws');
    const name = stackName(lab, opts);
    const region = lab.target.aws.region;
    const me = thisController(lab.name);
    // Throws (exit 3) unless the stack is gone and EC2 lists nothing tagged with the lab: see stack-teardown.ts.
    const detail = await teardownStack(lab.name, name, {
      ...stackLockDeps(lab.name, name, progress),
      selectStack: (n) => selectStack(n, false),
      ec2: () => ec2Client(region),
      region,
      backoff: defaultBackoff(),
      output: (out) => process.stderr.write(out),
      refuseOther: (deployment) => refuseOtherController(name, deploymentController(deployment), me),
    });
    await removeLabStateDir(lab.name);
    return [{ host: '*', removed: true, detail }];
  },
  downHint(lab, labFile, opts) {
    // A stack not named after the lab is found only with --stack.
    return downByDefinitionHint(lab, labFile, opts.stack !== undefined ? ` --stack ${opts.stack}` : '');
  },
  bootTimeoutSec() {
    // Cloud hosts also install packages at first boot (cloud-init), which prepare waits for.
    return 20 * 60;
  },
  stateHint(lab) {
    return `${join(labStateDir(lab.name), 'controller.log')} (pulumi output)`;
  },
};
