import { CONTAINER_NETWORK, type ContainerNetwork, TARGET_KINDS } from '../../catalog.js';
import type { SeedFigure, SeedParameter } from '../../report/seed-facts.js';

/** The targets whose hosts give containers `network` (lab/catalog.ts): "local or static". */
const targetsWith = (network: ContainerNetwork) =>
  TARGET_KINDS.filter((t) => CONTAINER_NETWORK[t] === network).join(' or ');

/**
 * Seed 004: ten containers of a 1.6 GB image on Docker 1.10, devicemapper
 * direct-lvm against OverlayFS on XFS, each phase timed once.
 */
export const LIFECYCLE_SEED_PARAMETERS: readonly SeedParameter[] = [
  {
    label: 'containers',
    seed: 10,
    run: { param: 'containers' },
    source: { seed: '004', line: 38, words: 'for i in $(seq 10)' },
  },
  {
    label: 'containers churning packages at once',
    seed: 5,
    run: { param: 'churnContainers' },
    source: { seed: '004', line: 66, words: 'on 5 of these containers in parallel' },
  },
  {
    label: 'image size',
    seed: '1,633,247,414 B',
    run: {
      param: 'image',
      says: {
        small: 'the shell tool image: a shell and a few coreutils (guest/images/shell.image)',
        large: 'a Debian 12 rootfs with compilers, Go and SciPy, over 1 GB (guest/images/large.image)',
      },
    },
    source: { seed: '004', line: 46, words: 'SizeRootFs=1633247414' },
  },
  {
    label: 'OverlayFS host',
    seed: "Docker 1.10's overlay driver on XFS (mkfs -t xfs -n ftype=1) on an LV of its own",
    run: { stack: { drivers: ['overlay2', 'overlay'], same: [] } },
    source: { seed: '004', line: 28, words: "STORAGE_DRIVER='overlay'", gloss: 'the overlay driver, not overlay2' },
  },
  {
    label: 'devicemapper host',
    seed: "a direct-lvm thin pool docker-storage-setup made from a volume group's free space",
    run: { stack: { drivers: ['devicemapper'], same: [] } },
    source: {
      seed: '004',
      line: 12,
      words: "VG='volume_group_with_free_space_for_docker'",
      gloss: 'then docker-storage-setup (line 13)',
    },
  },
  {
    label: 'container network',
    seed: '`docker run -h … -d` on the default bridge network: each start sets up its network',
    run: {
      network: {
        says: {
          default: `\`docker run -d\` on Docker's default bridge network (target ${targetsWith('default')}): each start sets up its network`,
          none: `\`docker run --network none\` on a daemon started with bridge none and no iptables (guest/lib.sh, target ${targetsWith('none')}): no network setup is timed`,
        },
        same: 'default',
      },
    },
    source: { seed: '004', line: 38, words: 'docker run -h "con$i.example.com" -d r7perfsat' },
  },
  {
    label: 'docker inspect --size',
    seed: 'one container',
    run: { fixed: 'every container of the run phase at once' },
    source: { seed: '004', line: 44, words: 'docker inspect --size -f' },
  },
  {
    label: 'package churn',
    seed: 'an ansible playbook registering with Satellite 6 and installing Katello Agent, then one downgrading packages',
    run: { fixed: "dpkg -i and dpkg -P of the churn image's own .deb cache, no network" },
    source: { seed: '004', line: 66, words: 'Running ansible playbook which registers via subscription-manager' },
  },
];

/** One phase's seconds on each driver, as the seed timed it over its ten (or five) containers. */
export interface PhaseFigures {
  devicemapper: SeedFigure;
  overlay2: SeedFigure;
  /** The seed's phase is a different job that plays the same part (its ansible churn for our dpkg churn). */
  analogue?: string;
}

const figure = (value: number, line: number, words: string): SeedFigure => ({
  value,
  source: { seed: '004', line, words },
});

/** The seed's seconds per phase (it ran OverlayFS, the overlay2 of Docker 1.10's day). */
export const LIFECYCLE_SEED_FIGURES = {
  run: {
    devicemapper: figure(38.832, 39, 'Devicemapper direct LVM: 38.832s'),
    overlay2: figure(7.53, 40, 'OverlayFS: 7.530s'),
  },
  inspect: {
    devicemapper: figure(18.254, 45, 'Devicemapper direct LVM: 18.254s'),
    overlay2: figure(2.694, 47, 'OverlayFS: 2.694s'),
  },
  stop: {
    devicemapper: figure(4.888, 55, 'Devicemapper direct LVM: 4.888s'),
    overlay2: figure(3.266, 56, 'OverlayFS: 3.266s'),
  },
  rm: {
    devicemapper: figure(2.289, 61, 'Devicemapper direct LVM: 2.289s'),
    overlay2: figure(0.206, 62, 'OverlayFS: 0.206s'),
  },
  install: {
    devicemapper: figure(174.169, 68, 'Devicemapper direct LVM: 2m54.169s'),
    overlay2: figure(165.89, 69, 'OverlayFS: 2m45.890s'),
    analogue: 'registering with Satellite and installing Katello Agent (ansible)',
  },
  remove: {
    devicemapper: figure(94.035, 77, 'Devicemapper direct LVM: 1m34.035s'),
    overlay2: figure(61.685, 78, 'OverlayFS: 1m1.685s'),
    analogue: 'downgrading a few packages (ansible)',
  },
} as const satisfies Record<string, PhaseFigures>;
