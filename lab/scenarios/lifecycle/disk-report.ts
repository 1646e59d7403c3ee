import { describe } from '../../analyze/stats.js';
import type { Sample } from '../../record/samples.js';
import { fmt, groupBy } from '../../report/format.js';
import type { Align, Cell, Section, SectionContext } from '../../report/model.js';
import { paragraph, plain, prose, table } from '../../report/model.js';
import { DISK_METRICS, type DiskMetric, START_PHASE } from './disk.js';
import { LIFECYCLE_PHASES } from './parse.js';

/** The table's value columns. */
const COLUMNS: readonly { metric: DiskMetric; title: string; thin?: true }[] = [
  { metric: 'data_root_bytes', title: 'data root, du' },
  { metric: 'df_images_bytes', title: 'system df: images' },
  { metric: 'df_containers_bytes', title: 'system df: containers' },
  { metric: 'thin_data_bytes', title: 'thin pool: data used', thin: true },
  { metric: 'thin_data_percent', title: 'thin pool: data %', thin: true },
  { metric: 'thin_metadata_percent', title: 'thin pool: metadata %', thin: true },
];

const PHASE_ORDER: readonly string[] = [START_PHASE, ...LIFECYCLE_PHASES];

const BYTE_UNITS = ['B', 'kB', 'MB', 'GB', 'TB'] as const;

/** Bytes in powers of 1000, as `system df` prints them: "2.92 kB", "17.2 MB". */
export function bytesText(bytes: number): string {
  let unit = 0;
  while (Math.abs(bytes) >= 1000 ** (unit + 1) && unit < BYTE_UNITS.length - 1) unit++;
  return unit === 0 ? `${Math.round(bytes)} B` : `${fmt(bytes / 1000 ** unit)} ${BYTE_UNITS[unit]}`;
}

/** "median (min–max)" of one metric over a cell's samples, bytes with their unit. */
function diskCell(samples: readonly Sample[], metric: DiskMetric): { text: string; n: number } {
  const values = samples.filter((s) => s.metric === metric).map((s) => s.value);
  if (!values.length) return { text: '–', n: 0 };
  const text = DISK_METRICS[metric] === 'B' ? bytesText : fmt;
  const st = describe(values);
  return { text: `${text(st.median)} (${text(st.min)}–${text(st.max)})`, n: st.n };
}

/**
 * The disk use after each phase, per host (its driver) and phase: the
 * phases down the table, the hosts side by side in each, so one phase reads
 * across drivers. The thin-pool columns appear when a host has a pool.
 */
export function diskSection({ lab, samples }: SectionContext): Section[] {
  const disk = samples.filter((s) => Object.hasOwn(DISK_METRICS, s.metric));
  if (!disk.length) return [];
  const columns = COLUMNS.filter((c) => !c.thin || disk.some((s) => s.metric === c.metric));
  const header = ['phase', 'host (driver)', ...columns.map((c) => c.title), 'n'];
  const align = header.map((_, i): Align => (i < 2 ? 'left' : 'right'));
  const byPhase = groupBy(disk, (s) => String(s.phase ?? ''));
  const rank = (phase: string) => (PHASE_ORDER.indexOf(phase) + 1 || 99) as number;
  const rows: Cell[][] = [];
  for (const phase of [...byPhase.keys()].sort((a, b) => rank(a) - rank(b))) {
    const byHost = groupBy(byPhase.get(phase) ?? [], (s) => s.host);
    for (const { name } of lab.hosts) {
      const hostSamples = byHost.get(name);
      if (!hostSamples?.length) continue;
      const cells = columns.map((c) => diskCell(hostSamples, c.metric));
      const n = Math.max(...cells.map((c) => c.n));
      rows.push(
        [phase, `${name} (${hostSamples[0]?.profile ?? ''})`, ...cells.map((c) => c.text), String(n)].map(plain),
      );
    }
  }
  return [
    {
      level: 3,
      title: plain('disk use after each phase, per driver'),
      blocks: [
        paragraph(
          prose(
            "Taken after each phase, outside its timing, after a `sync`; **start** is before the trial's first container (the tool images loaded). **data root, du**: `du -sx` of the engine's data root (`docker info`'s DockerRootDir, Podman's graphroot) — container file systems mounted inside it are not counted again; on devicemapper it holds only metadata, the data is in the thin pool. **system df**: the engine's `system df` sizes (four significant digits). **thin pool**: `lvs` of docker's direct-lvm pool, data used = pool size × data %. kB, MB, GB: powers of 1000, as `system df` prints them.",
          ),
        ),
        table(header, align, rows),
      ],
    },
  ];
}
