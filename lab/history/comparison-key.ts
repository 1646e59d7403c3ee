import type { LoadedRun } from '../record/load.js';

/**
 * What a night's numbers are only comparable across: per host, the machine
 * and software under the storage profile. A night whose key differs from its
 * baseline's is still compared, but the comparison names what changed, so an
 * AMI or kernel update is not read as a storage regression.
 *
 * From the inventory's host labels (what the target created: instance type,
 * base image and AMI id, name and owner, volume type, market, region) and
 * from the host's env summary.json (what the guest reported).
 */
export type ComparisonKey = Record<string, Record<string, string>>;

/** Host labels that describe the machine (others, such as a name tag, do not change the numbers). */
const LABEL_FIELDS = [
  'instanceType',
  // The image the host was created from (infra/aws/ami.ts amiLabels): its id, and the name and
  // publisher that say which release it is, so "ami-0a… → ami-0b…" comes with the dated names.
  'ami',
  'amiName',
  'amiOwner',
  'image',
  'volumeType',
  'market',
  'region',
] as const;

/** env summary.json fields that describe the software and hardware under the profile. */
const ENV_FIELDS = [
  'os',
  'kernel',
  'cpu',
  'cpus',
  'engine',
  'engine_version',
  'docker_version',
  'containerd_version',
  'storage_driver',
  'snapshotter',
  'storage_options',
  'backing_fs',
  'docker_root_fstype',
  'docker_root_options',
] as const;

interface RecordedHost {
  name: string;
  labels?: Record<string, string>;
}

export function comparisonKey(run: LoadedRun): ComparisonKey {
  const inventory = (run.manifest as { inventory?: { hosts?: RecordedHost[] } }).inventory;
  const key: ComparisonKey = {};
  const hostNames = new Set([...(inventory?.hosts ?? []).map((h) => h.name), ...run.env.keys()]);
  for (const host of [...hostNames].sort()) {
    const fields: Record<string, string> = {};
    const labels = inventory?.hosts?.find((h) => h.name === host)?.labels ?? {};
    for (const f of LABEL_FIELDS) if (labels[f] !== undefined) fields[f] = String(labels[f]);
    const env = run.env.get(host) ?? {};
    for (const f of ENV_FIELDS) if (env[f] !== undefined && env[f] !== '') fields[f] = String(env[f]);
    key[host] = fields;
  }
  return key;
}

/**
 * The fields that differ between a baseline's key and the new night's, as
 * "host: field before → after" (a field one side did not record counts as
 * unknown, not as a change: older runs recorded less).
 */
export function keyChanges(before: ComparisonKey, after: ComparisonKey): string[] {
  const changes: string[] = [];
  for (const host of Object.keys(after).sort()) {
    const was = before[host];
    if (!was) continue;
    const now = after[host] as Record<string, string>;
    for (const field of Object.keys(now).sort()) {
      if (was[field] !== undefined && was[field] !== now[field])
        changes.push(`${host}: ${field} ${was[field]} → ${now[field]}`);
    }
  }
  return changes;
}

export function parseKey(text: string | null): ComparisonKey {
  return text ? (JSON.parse(text) as ComparisonKey) : {};
}
