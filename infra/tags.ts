import { CONTROLLER_TAG } from '../lab/targets/aws/stack-owner.js';
import { EXPIRY_TAG } from '../lab/targets/types.js';

/**
 * Every cloud resource carries these tags: `layerlab sweep` deletes what
 * outlived `layerlab:expires`, and people can see whose lab it is.
 */
export interface LabTagInfo {
  lab: string;
  runId: string;
  owner: string;
  /** ISO 8601 instant after which the sweeper may delete the resource. */
  expiresAt: string;
  /** Which controller's lab it is (lab/targets/aws/stack-owner.ts), when the stack config says. */
  controller?: string;
}

export function labTags(info: LabTagInfo, name: string): Record<string, string> {
  return {
    Name: name,
    'layerlab:lab': info.lab,
    'layerlab:run': info.runId,
    'layerlab:owner': info.owner,
    [EXPIRY_TAG]: info.expiresAt,
    ...(info.controller ? { [CONTROLLER_TAG]: info.controller } : {}),
  };
}
