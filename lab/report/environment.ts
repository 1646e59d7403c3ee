import type { RecordedLab } from '../record/load.js';
import type { HostEnvSummary } from '../record/schemas.js';
import { formatBytes } from '../util/size.js';
import {
  type Cell,
  type Inline,
  NO_CELL,
  type Section,
  bold,
  inline,
  paragraph,
  plain,
  prose,
  table,
} from './model.js';

/**
 * The hosts' environments side by side, one column per host, a row per
 * fact, and the facts that differ between hosts marked: a difference the
 * matrix shows may come from any of them, not only from the profile.
 */

/** One fact of a host's summary.json as text ('' when the host did not record it). */
interface Fact {
  label: string;
  value(env: HostEnvSummary): string;
  /** Differs from run to run on the same machine (load): shown, never marked. */
  volatile?: true;
}

const join = (...parts: (string | undefined)[]) => parts.filter(Boolean).join(' ');

/** The facts in the order a reader compares them: system, engine, storage, machine. */
const FACTS: readonly Fact[] = [
  { label: 'OS', value: (e) => join(e.os) },
  { label: 'kernel', value: (e) => join(e.kernel) },
  // docker_version is "podman <v>" on Podman hosts; runs before engine_version have only it.
  { label: 'engine', value: (e) => join(e.docker_version?.startsWith('podman') ? '' : e.engine, e.docker_version) },
  { label: 'containerd', value: (e) => join(e.containerd_version) },
  { label: 'storage driver', value: (e) => join(e.storage_driver, e.backing_fs ? `on ${e.backing_fs}` : '') },
  { label: 'snapshotter', value: (e) => join(e.snapshotter) },
  { label: 'storage options', value: (e) => join(e.storage_options) },
  { label: '/var/lib/docker on', value: (e) => join(e.docker_root_fstype, e.docker_root_source) },
  { label: 'mount options', value: (e) => join(e.docker_root_options) },
  {
    label: 'data disk',
    value: (e) => join(e.data_disk, e.data_disk_bytes ? formatBytes(Number(e.data_disk_bytes)) : ''),
  },
  { label: 'CPU', value: (e) => join(e.cpu) },
  { label: 'CPUs', value: (e) => join(e.cpus) },
  { label: 'memory', value: (e) => (e.mem_bytes ? formatBytes(Number(e.mem_bytes)) : '') },
  { label: 'load at start', value: (e) => join(e.loadavg?.split(' ').slice(0, 3).join(' ')), volatile: true },
];

/** The hosts in the lab's order, then any other host with a recorded environment. */
function hostOrder(lab: RecordedLab, env: ReadonlyMap<string, HostEnvSummary>): string[] {
  const named = lab.hosts.map((h) => h.name);
  return [...named, ...[...env.keys()].filter((h) => !named.includes(h))];
}

/**
 * The Hosts section: a column per host (its profile under its name), a row
 * per fact any host recorded; a fact whose values differ between hosts has
 * its name and values in bold and "differs" beside its name. A host whose
 * summary was unreadable says so in its first row.
 */
export function environmentSection(lab: RecordedLab, env: ReadonlyMap<string, HostEnvSummary>): Section {
  const hosts = hostOrder(lab, env);
  const profile = new Map(lab.hosts.map((h) => [h.name, h.profile]));
  const readable = hosts.filter((h) => env.get(h) && !env.get(h)?.unreadable);
  const rows: Cell[][] = [];
  const unreadable = hosts.map((h) => {
    const e = env.get(h);
    return e?.unreadable ? `unreadable: ${e.unreadable}` : e ? undefined : 'not recorded';
  });
  if (unreadable.some((u) => u !== undefined)) {
    rows.push([plain('summary'), ...unreadable.map((u) => (u === undefined ? NO_CELL : plain(u)))]);
  }
  for (const fact of FACTS) {
    const values = hosts.map((h) => {
      const e = env.get(h);
      return e && !e.unreadable ? fact.value(e) : undefined;
    });
    if (values.every((v) => !v)) continue;
    const differs =
      !fact.volatile &&
      readable.length > 1 &&
      new Set(readable.map((h) => fact.value(env.get(h) as HostEnvSummary))).size > 1;
    const show = (v: string | undefined): Cell =>
      v === undefined ? NO_CELL : differs ? bold(v || '–') : plain(v || '–');
    const label: Inline = differs ? inline`**${fact.label}** — differs` : plain(fact.label);
    rows.push([label, ...values.map(show)]);
  }
  const header = ['fact', ...hosts.map((h) => (profile.has(h) ? `${h} (${profile.get(h)})` : h))];
  return {
    level: 2,
    title: plain('Hosts'),
    blocks: [
      table(
        header,
        header.map(() => 'left' as const),
        rows,
      ),
      paragraph(
        prose(
          'A fact in **bold** differs between hosts. The raw `docker info`, `xfs_info`, `lvs` and `df` output is in `hosts/<host>/env/`.',
        ),
      ),
    ],
  };
}
