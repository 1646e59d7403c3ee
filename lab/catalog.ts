/**
 * The one definition of the lab's axes: storage profiles (how a host stores
 * containers) and mount kinds (where a container's data lives). Validation,
 * targets, guest scripts and reports all read them from here.
 */

/**
 * The names of labs, hosts and runs' labs: they become file names, docker
 * volume names and labels; keeping them to this alphabet means they can
 * never carry shell metacharacters.
 */
export const NAME_RE = /^[a-z][a-z0-9-]{0,30}$/;

export const TARGET_KINDS = ['local', 'aws', 'static'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

/** How Docker networks containers on a host: its default bridge, or no network at all. */
export const CONTAINER_NETWORKS = ['default', 'none'] as const;
export type ContainerNetwork = (typeof CONTAINER_NETWORKS)[number];

/**
 * Each target's container network, the one place it is decided: prepare
 * passes it to the profile (guest/lib.sh ll_docker_start writes daemon.json
 * from it), trials to lifecycle's `docker run` (LL_CONTAINER_NETWORK), and
 * the report shows seed 004's network line from it. `default` is Docker's own
 * bridge, iptables and NAT, as seed 004 ran it: only on aws, where the lab
 * made the host and its network (its security group limits the traffic).
 * `none`: dockerd without bridge, iptables or NAT and containers with
 * `--network none` on QEMU guests of this machine (no bridge or iptables
 * rules here) and on machines of others (static).
 */
export const CONTAINER_NETWORK: Readonly<Record<TargetKind, ContainerNetwork>> = {
  local: 'none',
  aws: 'default',
  static: 'none',
};

/**
 * Debian releases a host can run (a host's `os`). Each brings its own engine
 * versions; the local target builds one guest image per release.
 */
export const OS_RELEASES = {
  'debian-12': {
    codename: 'bookworm',
    engines: 'docker.io 20.10 (graph drivers incl. devicemapper), containerd 1.6',
  },
  'debian-13': {
    codename: 'trixie',
    engines: 'docker.io 26.1 (no devicemapper; containerd image store as an option), containerd 1.7, podman 5.4',
  },
} as const satisfies Record<string, { codename: string; engines: string }>;

export type OsRelease = keyof typeof OS_RELEASES;
export const OS_RELEASE_NAMES = Object.keys(OS_RELEASES) as [OsRelease, ...OsRelease[]];
/** The release of a host whose definition names none (every host before releases existed). */
export const DEFAULT_OS_RELEASE: OsRelease = 'debian-12';

/** Machine images the cloud program knows (infra/aws/ami.ts maps them to AMIs). */
export type BaseImage = OsRelease | 'flatcar';

/** The container engine a profile sets up; guest/lib.sh's ll_engine drives its CLI. */
export const ENGINES = ['docker', 'podman'] as const;
export type Engine = (typeof ENGINES)[number];

export interface ProfileSpec {
  /** Engine the profile starts. */
  engine: Engine;
  /**
   * Storage driver the engine reports once the profile is applied (`docker
   * info` .Driver, `podman info` .store.graphDriverName); for Docker's
   * containerd image store, the snapshotter.
   */
  storageDriver: string;
  /** Targets that can provide a host for it (static: whoever owns the machine decides). */
  targets: readonly TargetKind[];
  /**
   * OS image family: 'debian' profiles run on the host's `os` release (one of
   * `releases`); 'flatcar' boots Flatcar's own image, whatever `os` says.
   */
  image: 'debian' | 'flatcar';
  /** Debian releases whose engine can run it (validation refuses the others by name). */
  releases: readonly OsRelease[];
  /**
   * Major versions of the engine that have what the profile needs, checked on
   * machines layerlab did not build (static target): `min` inclusive, `below` exclusive.
   */
  engineMajor?: { min?: number; below?: number };
  /**
   * The local target boots it only from an image file the user supplies (a
   * host's `image:`; lab/targets/local/flatcar-boot.ts), although `targets`
   * leaves local out: the image's documented file name and where to get it.
   */
  localUserImage?: { fileName: string; url: string };
  /** Script under guest/profiles/ that applies it on a host. */
  script: string;
  /** Seed article the profile comes from. */
  seed: string;
  description: string;
}

export const PROFILES = {
  'overlay2-xfs': {
    engine: 'docker',
    storageDriver: 'overlay2',
    targets: ['local', 'aws', 'static'],
    image: 'debian',
    releases: ['debian-12', 'debian-13'],
    script: 'profiles/overlay2-xfs.sh',
    seed: '004',
    description: 'data disk mkfs.xfs -n ftype=1, mounted at /var/lib/docker, overlay2',
  },
  'overlay2-ext4': {
    engine: 'docker',
    storageDriver: 'overlay2',
    targets: ['local', 'aws', 'static'],
    image: 'debian',
    // On debian-13 this is Docker 26's overlay2: the same script, a newer engine.
    releases: ['debian-12', 'debian-13'],
    script: 'profiles/overlay2-ext4.sh',
    seed: '003',
    description: 'data disk mkfs.ext4, mounted at /var/lib/docker, overlay2',
  },
  'devicemapper-lvm': {
    engine: 'docker',
    storageDriver: 'devicemapper',
    targets: ['local', 'aws', 'static'],
    image: 'debian',
    // Docker Engine 25 removed devicemapper; Debian 13's docker.io is 26.
    releases: ['debian-12'],
    engineMajor: { below: 25 },
    script: 'profiles/devicemapper-lvm.sh',
    seed: '004',
    description: 'direct-lvm thin pool on the data disk (dm.directlvm_device); /var/lib/docker on the root disk',
  },
  btrfs: {
    engine: 'docker',
    storageDriver: 'btrfs',
    targets: ['local', 'aws', 'static'],
    image: 'debian',
    releases: ['debian-12', 'debian-13'],
    script: 'profiles/btrfs.sh',
    seed: '-',
    description: 'data disk mkfs.btrfs, mounted at /var/lib/docker, btrfs driver',
  },
  flatcar: {
    engine: 'docker',
    storageDriver: 'overlay2',
    // A container-optimized OS is a different machine image, not a disk layout:
    // the local target builds only its Debian guest image...
    targets: ['aws', 'static'],
    image: 'flatcar',
    // Not Debian: validation refuses a flatcar host whose `os` is not the default.
    releases: [],
    // ...and boots Flatcar only from the QEMU image a host names (Flatcar's own name for it).
    localUserImage: {
      fileName: 'flatcar_production_qemu_image.img',
      url: 'https://stable.release.flatcar-linux.net/amd64-usr/current/flatcar_production_qemu_image.img',
    },
    script: 'profiles/flatcar.sh',
    seed: '002',
    description: 'Flatcar Container Linux (Ignition-configured), its Docker with overlay2 on an ext4 data disk',
  },
  'containerd-ext4': {
    engine: 'docker',
    // What `docker info` reports as Driver with the containerd image store.
    storageDriver: 'overlayfs',
    // Not static: the profile moves containerd's root (its config.toml), which
    // the set-aside of an owner's setup (guest/lib.sh) does not cover.
    targets: ['local', 'aws'],
    image: 'debian',
    // The containerd image store arrived in Engine 24; Debian 12's docker.io is 20.10.
    releases: ['debian-13'],
    engineMajor: { min: 24 },
    script: 'profiles/containerd-ext4.sh',
    seed: '-',
    description:
      'data disk mkfs.ext4 at /var/lib/docker (containerd root beside it), Docker with the containerd image store (features.containerd-snapshotter), overlayfs snapshotter',
  },
  'podman-overlay-ext4': {
    engine: 'podman',
    storageDriver: 'overlay',
    // Not static: the set-aside of an owner's setup (guest/lib.sh) covers Docker's data only.
    targets: ['local', 'aws'],
    image: 'debian',
    releases: ['debian-13'],
    script: 'profiles/podman-overlay-ext4.sh',
    seed: '-',
    description:
      'data disk mkfs.ext4 at /var/lib/docker, Podman (root) with its native overlay driver, its graphroot on that disk (so volumes and bind sources share one filesystem as with Docker)',
  },
} as const satisfies Record<string, ProfileSpec>;

export type ProfileName = keyof typeof PROFILES;
export const PROFILE_NAMES = Object.keys(PROFILES) as [ProfileName, ...ProfileName[]];

/** The machine image a host boots: Flatcar's for the flatcar profile, else its Debian release. */
export function baseImageOf(profile: ProfileName, os: OsRelease): BaseImage {
  return PROFILES[profile].image === 'flatcar' ? 'flatcar' : os;
}

export interface MountSpec {
  description: string;
  /** Targets that can provide it (a host folder exists only where the VM's host is ours). */
  targets: readonly TargetKind[];
  /** A folder of the VM's host, and the mechanism that shares it into the VM (absent: the VM's own disks). */
  share?: 'virtiofs' | 'nfs' | '9p';
}

export const MOUNT_KINDS = {
  layer: { description: "the container's writable layer (no mount)", targets: TARGET_KINDS },
  volume: { description: 'a fresh named volume per trial', targets: TARGET_KINDS },
  bind: { description: 'a bind mount of a fresh host directory beside /var/lib/docker', targets: TARGET_KINDS },
  hostshare: {
    // The analogue of boot2docker's vboxsf and Docker for Mac's osxfs (seeds 000, 002).
    description: "a folder of the VM's host shared into the VM (virtiofs), bind-mounted into the container",
    targets: ['local'],
    share: 'virtiofs',
  },
  'hostshare-nfs': {
    // The Vagrant CoreOS box's NFS share in seed 002 (55 MB/s against vboxsf's 1.16 MB/s).
    description:
      "a folder of the VM's host exported over NFSv4 by nfs-ganesha on 127.0.0.1, reached through the VM's user-mode network, bind-mounted into the container",
    targets: ['local'],
    share: 'nfs',
  },
  'hostshare-9p': {
    // QEMU's own file server (virtfs), how libvirt and many VM tools share a folder.
    description:
      "a folder of the VM's host served by QEMU itself over virtio-9p (9P2000.L), bind-mounted into the container; its lab's VMs boot Debian's generic kernel",
    targets: ['local'],
    share: '9p',
  },
} as const satisfies Record<string, MountSpec>;

export type MountKind = keyof typeof MOUNT_KINDS;
export const MOUNT_KIND_NAMES = Object.keys(MOUNT_KINDS) as [MountKind, ...MountKind[]];

/** The kinds whose data lives in a folder of the VM's host, each with its sharing mechanism. */
export const SHARED_FOLDER_MOUNTS = MOUNT_KIND_NAMES.filter((k) => (MOUNT_KINDS[k] as MountSpec).share);

/** The share mechanisms a lab's mount kinds need on the local target. */
export function sharesOf(mounts: readonly MountKind[]): Set<NonNullable<MountSpec['share']>> {
  return new Set(mounts.flatMap((k) => (MOUNT_KINDS[k] as MountSpec).share ?? []));
}

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
