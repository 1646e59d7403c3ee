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

/** A lab definition as a command loaded it: its file, and the target options of the command line. */
export interface LoadedLab {
  lab: LabDefinition;
  file: string;
  targetOptions: TargetOptions;
}

export interface ProvisionHooks {
  /** This process will tear the lab down itself (`all`); if it dies, `sweep` may. */
  ephemeral?: boolean;
  /** Boot and prepare from scratch even where a prepared template exists (`up --cold`). */
  cold?: boolean;
  /** The tool images prepare will load, name → content tag (what a prepared host holds). */
  toolImageTags?: Record<string, string>;
  log: HostLog;
  hostLog(host: string): HostLog;
  progress(message: string): void;
}

/** Hosts that exist and can be reached; which of them already carry the profile and images. */
export interface Provisioned {
  inventory: Inventory;
  /**
   * Whether the host carries its profile and every tool image in `toolImages`
   * (the names the lab's scenarios run in): a scenario added to the lab file
   * after its `up` makes the host unprepared, and prepare loads what is missing.
   */
  isPrepared(host: string, toolImages: readonly string[]): boolean;
  /** Called once the host is prepared with `toolImages` and no connection to it is open (a target may snapshot it then). */
  markPrepared(host: string, toolImages: readonly string[]): void | Promise<void>;
}

/** What teardown did to one host (`*`: the whole lab, as one stack). */
export interface DownReport {
  host: string;
  /** Whether what layerlab created there is gone; a false one makes the teardown incomplete. */
  removed: boolean;
  /** What happened, as printed after the host's name. */
  detail: string;
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
  /**
   * Removes a lab known by its name alone (its definition file gone), for
   * targets whose labs leave state found by name (`down --name`).
   */
  downByName?(labName: string): Promise<DownReport[]>;
  /** How to remove the lab by hand, for messages after a failure or a forced exit. */
  downHint(lab: LabDefinition, labFile: string, opts: TargetOptions): string;
  /** How long a host may take, from provisioning, to answer SSH (prepare's deadline). */
  bootTimeoutSec(lab: LabDefinition): number;
  /** Where people find logs and state when something failed. */
  stateHint(lab: LabDefinition): string;
  /**
   * What a host that never answered SSH showed of itself (a local VM's
   * console), for the error: `all` removes the logs before anyone reads them.
   */
  bootFailureDetail?(lab: LabDefinition, host: string): string;
}

/**
 * The hint of a target whose lab is found through its definition file (and
 * `options`, the command-line options that find it too); `sweep` catches what
 * the lab's own `down` cannot.
 */
export function downByDefinitionHint(lab: LabDefinition, labFile: string, options = ''): string {
  return `layerlab down --lab ${labFile} --target ${lab.target.kind}${options}; layerlab sweep`;
}

/** Hosts whose preparation is not tracked: prepare checks them each time (idempotent, cheap when done). */
export function unprepared(inventory: Inventory): Provisioned {
  return { inventory, isPrepared: () => false, markPrepared: () => {} };
}
