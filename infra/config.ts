import * as pulumi from '@pulumi/pulumi';
import { type StackController, controllerTagValue, parseControllerConfig } from '../lab/targets/aws/stack-owner.js';
import { DEFAULT_LAB_TTL_HOURS, defaultExpiry } from '../lab/targets/types.js';
import { projectPath } from './project-root.js';
import type { LabTagInfo } from './tags.js';

/**
 * Stack config (namespace `layerlab`): the operator's facts. The lab's own
 * facts (hosts, profiles, instance and volume types) stay in the lab definition.
 */
export interface OperatorConfig {
  /** Absolute path of the lab definition (`layerlab:lab`, relative to the project root). */
  labFile: string;
  /** Overrides the definition's target.kind (stack `local` implies local). */
  target?: string;
  sshCidrs: string[];
  allowOpenSsh: boolean;
  /** `aws:region`, if the stack sets it; the lab file's region must agree (aws/region.ts). */
  stackRegion?: string;
  tags: Omit<LabTagInfo, 'lab'>;
  /** The controller whose lab this stack is (`layerlab:controller`, set by `layerlab up`). */
  controller?: StackController;
}

export function readOperatorConfig(): OperatorConfig {
  const config = new pulumi.Config('layerlab');
  const stack = pulumi.getStack();
  const expiresAt = config.get('expiresAt');
  const controller = parseControllerConfig(config.get('controller'));
  if (!expiresAt) {
    pulumi.log.warn(
      `layerlab:expiresAt is not set; resources expire ${DEFAULT_LAB_TTL_HOURS} h from this update (set it once to keep the tags stable)`,
    );
  }
  return {
    labFile: projectPath(config.require('lab')),
    target: config.get('target') ?? (stack === 'local' ? 'local' : undefined),
    sshCidrs: config.getObject<string[]>('sshCidrs') ?? [],
    allowOpenSsh: config.getBoolean('allowOpenSsh') ?? false,
    stackRegion: new pulumi.Config('aws').get('region'),
    controller,
    tags: {
      ...(controller ? { controller: controllerTagValue(controller) } : {}),
      runId: config.get('runId') ?? stack,
      owner: config.get('owner') ?? process.env.USER ?? 'unknown',
      expiresAt: expiresAt ?? defaultExpiry(),
    },
  };
}
