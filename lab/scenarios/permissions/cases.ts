/**
 * Seed 003's permission cases: a non-root image (uid 65534, like
 * prom/prometheus) writes into its data directory, mounted seven ways. `seed`
 * is what the article observed; the report shows this run's outcome beside it
 * and marks a difference instead of hiding it.
 */
export interface PermissionCase {
  name: string;
  description: string;
  /** What is mounted: a host directory, or a named volume (whose `_data` the host user's check lists). */
  source: 'bind' | 'volume';
  /**
   * `owner` is the directory's "uid:gid mode" as the seed gives it (lines
   * 15–18); where the container wrote, the file it wrote has that uid:gid.
   */
  seed: { wrote: boolean; owner: string };
}

export const PERMISSION_CASES = [
  {
    name: 'missing-host-path',
    source: 'bind',
    description: 'bind (-v) of a host path that does not exist: docker creates it',
    seed: { wrote: false, owner: '0:0 755' },
  },
  {
    name: 'host-user-dir',
    source: 'bind',
    description: 'bind of a directory owned by the host user (1000:1000, mode 775)',
    seed: { wrote: false, owner: '1000:1000 775' },
  },
  {
    name: 'chown-fix',
    source: 'bind',
    description: 'the same directory after chown 65534:65534 on the host',
    seed: { wrote: true, owner: '65534:65534 775' },
  },
  {
    name: 'user-fix',
    source: 'bind',
    description: 'the host-user directory, container run with --user 1000:1000',
    seed: { wrote: true, owner: '1000:1000 775' },
  },
  {
    name: 'fresh-volume',
    source: 'volume',
    description: "a new named volume: docker copies the image directory's owner in",
    seed: { wrote: true, owner: '65534:65534' },
  },
  {
    name: 'reset-empty-volume',
    source: 'volume',
    description: 'a new volume whose _data was reset to root:root 755 while still empty',
    seed: { wrote: true, owner: '65534:65534' },
  },
  {
    name: 'volume-with-root-file',
    source: 'volume',
    description: 'a volume that already holds a root-owned file (root:root 755)',
    seed: { wrote: false, owner: '0:0 755' },
  },
] as const satisfies readonly PermissionCase[];

export type PermissionCaseName = (typeof PERMISSION_CASES)[number]['name'];
