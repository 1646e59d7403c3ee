import type { ProfileName, TargetKind } from '../catalog.js';

/** What every target hands the run: how to reach each host, and what it is. */
export interface InventoryHost {
  name: string;
  profile: ProfileName;
  address: string;
  port: number;
  user: string;
  /** Path of the private key file (the key itself never enters results). */
  privateKeyPath: string;
  /** Pinned SSH host key, an OpenSSH public-key line. */
  hostKey: string;
  /** Block device the storage profile formats. */
  dataDisk: string;
  /**
   * Static target only: the inventory's `dedicated` key, the owner's word that
   * layerlab may set aside what Docker holds on this machine. Hosts layerlab
   * creates (local, aws) are its own whatever this says: see labOwnsHost.
   */
  dedicated?: boolean;
  labels: Record<string, string>;
}

export interface Inventory {
  target: TargetKind;
  hosts: InventoryHost[];
}

/** The inventory as recorded in results: everything but key file locations. */
export function publicInventory(inventory: Inventory): {
  target: TargetKind;
  hosts: Omit<InventoryHost, 'privateKeyPath'>[];
} {
  return {
    target: inventory.target,
    hosts: inventory.hosts.map(({ privateKeyPath: _key, ...rest }) => rest),
  };
}

/**
 * What a Pulumi stack exports (`inventory` output): hosts without key
 * locations. The private key is a separate secret output (`sshPrivateKey`)
 * that the controller writes to a 0600 file.
 */
export interface StackInventory {
  target: 'aws' | 'local';
  lab: string;
  runId: string;
  expiresAt: string;
  hosts: Omit<InventoryHost, 'privateKeyPath'>[];
}

/** The tag (on every cloud resource) after which `layerlab sweep` may delete it. */
export const EXPIRY_TAG = 'layerlab:expires';

/** How long a cloud lab may live when nobody set its expiry: then `layerlab sweep` may delete it. */
export const DEFAULT_LAB_TTL_HOURS = 8;

export function defaultExpiry(now = Date.now()): string {
  return new Date(now + DEFAULT_LAB_TTL_HOURS * 3600_000).toISOString();
}
