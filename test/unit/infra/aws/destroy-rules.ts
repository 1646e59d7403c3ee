/**
 * What makes `pulumi destroy` of a lab impossible, or leaves part of it
 * running and billed: one rule per resource option, each with its reason.
 * program.test.ts checks every resource of every lab shape the schema
 * accepts against this list.
 */
import type { RecordedResource } from '../mock-cloud.ts';

export interface DestroyRule {
  id: string;
  /** One line: what goes wrong at destroy. */
  reason: string;
  /** Whether `r` (seen among all the lab's resources) breaks the rule. */
  breaks(r: RecordedResource, all: RecordedResource[]): boolean;
}

const INSTANCE = 'aws:ec2/instance:Instance';
const ATTACHMENT = 'aws:ec2/volumeAttachment:VolumeAttachment';

type Inputs = Record<string, unknown>;
const spotOptions = (r: RecordedResource): Inputs | undefined => {
  const market = r.inputs.instanceMarketOptions as Inputs | undefined;
  return market?.marketType === 'spot' ? ((market.spotOptions as Inputs | undefined) ?? {}) : undefined;
};
const attachedInstance = (r: RecordedResource, all: RecordedResource[]) =>
  all.find((i) => i.type === INSTANCE && i.id === r.inputs.instanceId);

export const DESTROY_RULES: DestroyRule[] = [
  {
    id: 'protect',
    reason: 'pulumi destroy refuses a protected resource until someone unprotects it',
    breaks: (r) => r.protect,
  },
  {
    id: 'retainOnDelete',
    reason: 'destroy forgets the resource but leaves it in the account, running and billed',
    breaks: (r) => r.retainOnDelete,
  },
  {
    id: 'disableApiTermination',
    reason: 'TerminateInstances fails while termination protection is on',
    breaks: (r) => r.type === INSTANCE && r.inputs.disableApiTermination === true,
  },
  {
    id: 'spot-stop-before-detach',
    reason: 'a one-time spot instance cannot be stopped, so the stop before detaching fails and destroy stops there',
    breaks: (r, all) => {
      if (r.type !== ATTACHMENT || r.inputs.stopInstanceBeforeDetaching !== true) return false;
      const instance = attachedInstance(r, all);
      return instance !== undefined && spotOptions(instance) !== undefined;
    },
  },
  {
    id: 'attachment-skip-destroy',
    reason: 'the volume stays attached to a live instance, so DeleteVolume fails with VolumeInUse',
    breaks: (r) => r.type === ATTACHMENT && r.inputs.skipDestroy === true,
  },
  {
    id: 'persistent-spot',
    reason: 'a persistent spot request launches a new instance after destroy terminated the old one',
    breaks: (r) => r.type === INSTANCE && spotOptions(r)?.spotInstanceType === 'persistent',
  },
  {
    id: 'spot-stop-or-hibernate',
    reason: 'an interrupted host that stops or hibernates keeps its request and volumes, and resumes mid-trial',
    breaks: (r) => {
      const behaviour = r.type === INSTANCE ? spotOptions(r)?.instanceInterruptionBehavior : undefined;
      return behaviour === 'stop' || behaviour === 'hibernate';
    },
  },
  {
    id: 'root-outlives-instance',
    reason: 'a root or extra block device with deleteOnTermination false outlives the instance, outside the stack',
    breaks: (r) => {
      if (r.type !== INSTANCE) return false;
      const devices = [r.inputs.rootBlockDevice, ...((r.inputs.ebsBlockDevices as unknown[]) ?? [])] as (
        | Inputs
        | undefined
      )[];
      return devices.some((d) => d?.deleteOnTermination === false);
    },
  },
  {
    id: 'final-snapshot',
    reason: 'destroy leaves a snapshot of the volume behind, outside the stack, billed',
    breaks: (r) => r.type === 'aws:ebs/volume:Volume' && r.inputs.finalSnapshot === true,
  },
  {
    id: 'adopted-default-network',
    reason:
      "a Default* resource adopts the account's own network: destroy leaves it, or (forceDestroy) deletes the account's default VPC",
    breaks: (r) => /^aws:ec2\/default[A-Z]/.test(r.type),
  },
  {
    id: 'default-provider',
    reason: "a resource on the default provider is destroyed in whatever region the stack's config names then",
    breaks: (r) => r.type.startsWith('aws:') && !r.provider,
  },
];

/** Every (resource, rule) pair that breaks, as readable lines. */
export function destroyProblems(all: RecordedResource[]): string[] {
  return all.flatMap((r) =>
    DESTROY_RULES.filter((rule) => rule.breaks(r, all)).map(
      (rule) => `${r.type} ${r.name}: ${rule.id} — ${rule.reason}`,
    ),
  );
}
