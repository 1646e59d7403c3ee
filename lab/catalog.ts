/**
 * The one definition of the lab's axes: storage profiles (how a host stores
 * containers) and mount kinds (where a container's data lives). Validation,
 * targets, guest scripts and reports all read them from here.
 */

export interface ProfileSpec {
  /** Docker storage driver the profile configures. */
  storageDriver: string;
  /** Script under guest/profiles/ that applies it on a host. */
  script: string;
  /** Seed article the profile comes from. */
  seed: string;
  description: string;
}

export const PROFILES = {
  'overlay2-xfs': {
    storageDriver: 'overlay2',
    script: 'profiles/overlay2-xfs.sh',
    seed: '004',
    description: 'data disk mkfs.xfs -n ftype=1, mounted at /var/lib/docker, overlay2',
  },
  'devicemapper-lvm': {
    storageDriver: 'devicemapper',
    script: 'profiles/devicemapper-lvm.sh',
    seed: '004',
    description: 'direct-lvm thin pool on the data disk (dm.directlvm_device); /var/lib/docker on the root disk',
  },
} as const satisfies Record<string, ProfileSpec>;

export type ProfileName = keyof typeof PROFILES;
export const PROFILE_NAMES = Object.keys(PROFILES) as [ProfileName, ...ProfileName[]];

export interface MountSpec {
  description: string;
}

export const MOUNT_KINDS = {
  layer: { description: "the container's writable layer (no mount)" },
  volume: { description: 'a fresh named volume per trial' },
  bind: { description: 'a bind mount of a fresh host directory beside /var/lib/docker' },
} as const satisfies Record<string, MountSpec>;

export type MountKind = keyof typeof MOUNT_KINDS;
export const MOUNT_KIND_NAMES = Object.keys(MOUNT_KINDS) as [MountKind, ...MountKind[]];

export const TARGET_KINDS = ['local', 'static'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];
