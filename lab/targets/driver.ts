import type { TargetKind } from '../catalog.js';
import type { LabDefinition } from '../definition/schema.js';
import type { HostLog } from '../util/log.js';
import type { Inventory } from './types.js';

/** Command-line facts a target may need besides the lab definition. */
export interface TargetOptions {
  /** static: the inventory file of existing machines. */
  inventoryFile?: string;
  /** aws: the Pulumi stack (default: the lab's name). */
  stack?: string;
  /** aws: CIDRs allowed to reach SSH (stored in the stack's config). */
  sshCidrs?: string[];
}

export interface ProvisionHooks {
  /** This process will tear the lab down itself (`all`); if it dies, `sweep` may. */
  ephemeral?: boolean;
  log: HostLog;
  hostLog(host: string): HostLog;
  progress(message: string): void;
}

/** Hosts that exist and can be reached; which of them already carry the profile and images. */
export interface Provisioned {
  inventory: Inventory;
  isPrepared(host: string): boolean;
  markPrepared(host: string): void;
}

export interface DownReport {
  host: string;
  outcome: string;
}

/**
 * What `up`, `run` and `down` need from a target. Everything else (prepare,
 * trials, collection) is the same code for every target.
 */
export interface TargetDriver {
  kind: TargetKind;
  /** Checks with no side effects; throws UserError (exit 2) before anything starts. */
  preflight(lab: LabDefinition, opts: TargetOptions): Promise<void>;
  /** Creates (or finds) the hosts. */
  provision(lab: LabDefinition, labFile: string, opts: TargetOptions, hooks: ProvisionHooks): Promise<Provisioned>;
  /**
   * The hosts of a lab that is up. Targets that do not track preparation
   * report hosts as unprepared; `run` then prepares them (cheap when done).
   */
  attach(lab: LabDefinition, opts: TargetOptions): Promise<Provisioned>;
  /** Removes what layerlab created for the lab. */
  down(lab: LabDefinition, opts: TargetOptions, progress: (message: string) => void): Promise<DownReport[]>;
  /** Where people find logs and state when something failed. */
  stateHint(lab: LabDefinition): string;
}

/** Hosts whose preparation is not tracked: prepare checks them each time (idempotent, cheap when done). */
export function unprepared(inventory: Inventory): Provisioned {
  return { inventory, isPrepared: () => false, markPrepared: () => {} };
}
