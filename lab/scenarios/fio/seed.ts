import type { ProfileName } from '../../catalog.js';
import type { SeedFigure, SeedParameter } from '../../report/seed-facts.js';

/**
 * The profiles that are seed 003's storage stack: Docker with the containerd
 * image store and its overlayfs snapshotter on ext4. overlay2-ext4 has the
 * file system and the kernel's overlayfs but Docker's own graph driver.
 */
export const SEED_003_PROFILES: readonly ProfileName[] = ['containerd-ext4'];

/**
 * Seed 003's storage stack, shared by all its claims (fio, permissions,
 * lifetime, backup ran in one VM): the report shows the judged hosts' stacks
 * beside it.
 */
export const SEED_003_STACK: SeedParameter = {
  label: 'storage stack',
  seed: 'ext4 root, containerd overlayfs snapshotter (one virtio disk)',
  run: { stack: { same: SEED_003_PROFILES } },
  source: { seed: '003', line: 7, words: 'ext4 root, containerd overlayfs snapshotter' },
};

/**
 * Seed 003's fio run, from its "Reproduce" sketch and the lines under it
 * (the sketch is one job; the script ran four).
 */
export const FIO_SEED_PARAMETERS: readonly SeedParameter[] = [
  SEED_003_STACK,
  {
    label: 'fio file size',
    seed: '512M',
    run: { param: 'size' },
    source: { seed: '003', line: 35, words: '--size=512M' },
  },
  {
    label: 'fio runtime per job',
    seed: 15,
    unit: 's',
    run: { param: 'runtime' },
    source: { seed: '003', line: 35, words: '--runtime=15' },
  },
  {
    label: 'fio ramp per job',
    seed: 2,
    unit: 's',
    run: { param: 'ramp' },
    source: { seed: '003', line: 39, words: 'with a 2 s ramp' },
  },
  {
    label: 'fio iodepth',
    seed: 32,
    run: { param: 'iodepth' },
    source: { seed: '003', line: 35, words: '--iodepth=32' },
  },
  {
    label: 'fio random block size',
    seed: '4k',
    run: { param: 'blockSize.rand' },
    source: { seed: '003', line: 35, words: '--rw=randread --bs=4k' },
  },
  {
    label: 'fio jobs',
    seed: ['seqwrite', 'seqread', 'randwrite', 'randread'],
    run: { param: 'jobs' },
    source: {
      seed: '003',
      line: 39,
      words: 'the script runs four jobs in order (sequential write, sequential read, random write, random read)',
    },
  },
  {
    label: 'fio container',
    seed: 'fresh',
    run: {
      param: 'container',
      says: { kept: 'one container per mount kind for the whole run, fio started in it with docker exec' },
    },
    source: { seed: '003', line: 35, words: 'docker run --rm -v fiovol:/t --user 0 fio-lab' },
  },
  {
    label: 'fio file',
    seed: 'per-trial',
    run: {
      param: 'layout',
      says: { once: "laid out by the cell's first trial and read again by every later one" },
    },
    source: { seed: '003', line: 39, words: 'the write job creates the file the others read' },
  },
  {
    label: 'repetitions',
    seed: 3,
    unit: 'runs',
    run: { repetitions: true },
    source: { seed: '003', line: 9, words: 'with three runs per cell' },
  },
];

/**
 * The random-read p99 completion latency (µs) the seed quotes as its largest
 * gap, which it still read as no consistent one (the ranges overlapped).
 */
export const FIO_SEED_FIGURES = {
  randreadP99Volume: { value: 1057, source: { seed: '003', line: 9, words: '1057 µs on the volume' } },
  randreadP99Layer: { value: 1548, source: { seed: '003', line: 9, words: '1548 µs on the layer' } },
} as const satisfies Record<string, SeedFigure>;
