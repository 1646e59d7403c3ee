/**
 * The one definition of the lab's axes: storage profiles (how a host stores
 * containers) and mount kinds (where a container's data lives). Validation,
 * targets, guest scripts and reports all read them from here.
 */

export const TARGET_KINDS = ['local', 'aws', 'static'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

/** Machine images the cloud program knows (infra/aws/ami.ts maps them to AMIs). */
export type BaseImage = 'debian-12' | 'flatcar';

export interface ProfileSpec {
  /** Docker storage driver the profile configures. */
  storageDriver: string;
  /** Targets that can provide a host for it (static: whoever owns the machine decides). */
  targets: readonly TargetKind[];
  /** OS image a cloud host of this profile boots. */
  image: BaseImage;
  /** Script under guest/profiles/ that applies it on a host. */
  script: string;
  /** Seed article the profile comes from. */
  seed: string;
  description: string;
}

export const PROFILES = {
  'overlay2-xfs': {
    storageDriver: 'overlay2',
    targets: ['local', 'aws', 'static'],
    image: 'debian-12',
    script: 'profiles/overlay2-xfs.sh',
    seed: '004',
    description: 'data disk mkfs.xfs -n ftype=1, mounted at /var/lib/docker, overlay2',
  },
  'overlay2-ext4': {
    storageDriver: 'overlay2',
    targets: ['local', 'aws', 'static'],
    image: 'debian-12',
    script: 'profiles/overlay2-ext4.sh',
    seed: '003',
    description: 'data disk mkfs.ext4, mounted at /var/lib/docker, overlay2',
  },
  'devicemapper-lvm': {
    storageDriver: 'devicemapper',
    targets: ['local', 'aws', 'static'],
    image: 'debian-12',
    script: 'profiles/devicemapper-lvm.sh',
    seed: '004',
    description: 'direct-lvm thin pool on the data disk (dm.directlvm_device); /var/lib/docker on the root disk',
  },
  btrfs: {
    storageDriver: 'btrfs',
    targets: ['local', 'aws', 'static'],
    image: 'debian-12',
    script: 'profiles/btrfs.sh',
    seed: '-',
    description: 'data disk mkfs.btrfs, mounted at /var/lib/docker, btrfs driver',
  },
  flatcar: {
    storageDriver: 'overlay2',
    // A container-optimized OS is a different machine image, not a disk layout:
    // the local target boots only its Debian guest image.
    targets: ['aws', 'static'],
    image: 'flatcar',
    script: 'profiles/flatcar.sh',
    seed: '002',
    description: 'Flatcar Container Linux (Ignition-configured), its Docker with overlay2 on an ext4 data disk',
  },
} as const satisfies Record<string, ProfileSpec>;

export type ProfileName = keyof typeof PROFILES;
export const PROFILE_NAMES = Object.keys(PROFILES) as [ProfileName, ...ProfileName[]];

export interface MountSpec {
  description: string;
  /** Targets that can provide it (a host folder exists only where the VM's host is ours). */
  targets: readonly TargetKind[];
}

export const MOUNT_KINDS = {
  layer: { description: "the container's writable layer (no mount)", targets: TARGET_KINDS },
  volume: { description: 'a fresh named volume per trial', targets: TARGET_KINDS },
  bind: { description: 'a bind mount of a fresh host directory beside /var/lib/docker', targets: TARGET_KINDS },
  hostshare: {
    // The analogue of boot2docker's vboxsf and Docker for Mac's osxfs (seeds 000, 002).
    description: "a folder of the VM's host shared into the VM (virtiofs), bind-mounted into the container",
    targets: ['local'],
  },
} as const satisfies Record<string, MountSpec>;

export type MountKind = keyof typeof MOUNT_KINDS;
export const MOUNT_KIND_NAMES = Object.keys(MOUNT_KINDS) as [MountKind, ...MountKind[]];

/**
 * Pairs of mount kinds that are the same mechanism by construction: on every
 * profile a named volume and a bind source are plain directories on the
 * file system holding /var/lib/docker. Every run compares them anyway, as a
 * free A/A check: a difference there is a warning about the lab, not a
 * finding. A lab can name more pairs (`equivalent`).
 */
export const EQUIVALENT_MOUNTS: readonly (readonly [MountKind, MountKind])[] = [['volume', 'bind']];

/**
 * The mount coordinate of a trial whose scenario sets up its own storage
 * (permissions, lifetime, backup and lifecycle compare mounts inside one trial).
 */
export const NO_MOUNT = 'none';
export type TrialMount = MountKind | typeof NO_MOUNT;
