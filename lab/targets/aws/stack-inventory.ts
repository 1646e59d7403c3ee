import type { InventoryHost, StackInventory } from '../types.js';
import type { StackController } from './stack-owner.js';

/**
 * A host as the AWS program exports it: its instance id instead of a host
 * key. The key is generated on the host and read from its console by the
 * controller (console-host-key.ts), never by the program.
 */
export type AwsStackHost = Omit<InventoryHost, 'privateKeyPath' | 'hostKey'> & { instanceId: string };

/** The AWS program's `inventory` output. */
export interface AwsStackInventory extends Omit<StackInventory, 'target' | 'hosts'> {
  target: 'aws';
  hosts: AwsStackHost[];
  /** Which controller's lab the stack is (stack-owner.ts); absent on stacks made before it was recorded. */
  controller?: StackController;
}
