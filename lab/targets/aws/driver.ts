import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import type { Stack } from '@pulumi/pulumi/automation/index.js';
import type { LabDefinition } from '../../definition/schema.js';
import { LabError, UserError } from '../../errors.js';
import { PACKAGE_ROOT, labStateDir } from '../../paths.js';
import { writeFileAtomic, writeSecret } from '../../util/files.js';
import { type ProvisionHooks, type TargetDriver, type TargetOptions, unprepared } from '../driver.js';
import { type Inventory, type StackInventory, defaultExpiry } from '../types.js';
import { requirePulumiCli } from './pulumi-cli.js';

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
  return create ? auto.LocalWorkspace.createOrSelectStack(args) : auto.LocalWorkspace.selectStack(args);
}

/** The stack's outputs as an inventory; the key goes to a 0600 file beside it. */
async function saveInventory(lab: string, outputs: Record<string, { value: unknown }>): Promise<Inventory> {
  const stackInventory = outputs.inventory?.value as StackInventory | undefined;
  const key = outputs.sshPrivateKey?.value;
  if (!stackInventory?.hosts || typeof key !== 'string') {
    throw new LabError('the stack has no inventory/sshPrivateKey outputs; was it created by infra/ (Pulumi.yaml)?');
  }
  const keyPath = join(savedDir(lab), 'operator_key');
  await writeSecret(keyPath, key);
  const inventory: Inventory = {
    target: 'aws',
    hosts: stackInventory.hosts.map((h) => ({ ...h, privateKeyPath: keyPath })),
  };
  await writeFileAtomic(join(savedDir(lab), 'inventory.json'), `${JSON.stringify(inventory, null, 2)}\n`);
  return inventory;
}

function operatorCidrs(opts: TargetOptions): string[] {
  return opts.sshCidrs?.length ? opts.sshCidrs : (process.env.LAYERLAB_SSH_CIDRS ?? '').split(/[\s,]+/).filter(Boolean);
}

/**
 * EC2 hosts from the Pulumi program in infra/ (the same one `pulumi up`
 * runs), driven through the Automation API.
 */
export const awsDriver: TargetDriver = {
  kind: 'aws',
  async preflight(_lab, opts) {
    requirePulumiCli('target aws');
    if (opts.stack === undefined && !operatorCidrs(opts).length) {
      throw new UserError(
        'target aws needs the address(es) allowed to reach SSH: --ssh-cidr <your-ip>/32 (or LAYERLAB_SSH_CIDRS)',
      );
    }
  },
  async provision(lab, labFile, opts, hooks: ProvisionHooks) {
    const name = stackName(lab, opts);
    hooks.progress(`pulumi: stack ${name} (program infra/, region ${lab.target.aws.region})`);
    const stack = await selectStack(name, true);
    const config = await stack.getAllConfig();
    const cidrs = operatorCidrs(opts);
    await stack.setAllConfig({
      'layerlab:lab': { value: resolve(labFile) },
      'aws:region': { value: lab.target.aws.region },
      ...(cidrs.length ? { 'layerlab:sshCidrs': { value: JSON.stringify(cidrs) } } : {}),
      // Kept from the first up: a later up must not extend or shorten the lease silently.
      ...(config['layerlab:expiresAt'] ? {} : { 'layerlab:expiresAt': { value: defaultExpiry() } }),
      ...(config['layerlab:owner']
        ? {}
        : { 'layerlab:owner': { value: process.env.GITHUB_ACTOR ?? userInfo().username } }),
    });
    const result = await stack.up({ onOutput: (out) => hooks.log.output('pulumi', out) });
    hooks.progress(`pulumi: ${JSON.stringify(result.summary.resourceChanges ?? {})}`);
    return unprepared(await saveInventory(lab.name, result.outputs));
  },
  async attach(lab, opts) {
    if (opts.stack !== undefined) {
      requirePulumiCli('--stack');
      return unprepared(await saveInventory(lab.name, await (await selectStack(opts.stack, false)).outputs()));
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
    const stack = await selectStack(name, false).catch(() => undefined);
    if (!stack) {
      progress(`pulumi: no stack ${name}; nothing to destroy`);
    } else {
      progress(`pulumi: destroying stack ${name}`);
      await stack.destroy({ onOutput: (out) => process.stderr.write(out) });
      await stack.workspace.removeStack(name);
    }
    await rm(labStateDir(lab.name), { recursive: true, force: true });
    return [{ host: '*', outcome: stack ? `stack ${name} destroyed and removed` : 'nothing to destroy' }];
  },
  stateHint(lab) {
    return `${join(labStateDir(lab.name), 'controller.log')} (pulumi output)`;
  },
};
