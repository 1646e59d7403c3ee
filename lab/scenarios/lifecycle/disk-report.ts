import { describe } from '../../analyze/stats.js';
import type { Sample } from '../../record/samples.js';
import { fmt, groupBy } from '../../report/format.js';
import type { Align, Cell, Section, SectionContext } from '../../report/model.js';
import { paragraph, plain, prose, table } from '../../report/model.js';
import { DISK_METRICS, type DiskMetric, START_PHASE } from './disk.js';
import { LIFECYCLE_PHASES } from './parse.js';

/** Derived here, per trial: see growthSamples. */
export const GROWTH = 'growth_bytes';

/** The table's value columns. */
const COLUMNS: readonly { metric: DiskMetric | typeof GROWTH; title: string; thin?: true }[] = [
  { metric: GROWTH, title: 'held since start' },
  { metric: 'data_root_bytes', title: 'data root, du' },
  { metric: 'df_images_bytes', title: 'system df: images' },
  { metric: 'df_containers_bytes', title: 'system df: containers' },
  { metric: 'thin_data_bytes', title: 'thin pool: data used', thin: true },
  { metric: 'thin_data_percent', title: 'thin pool: data %', thin: true },
  { metric: 'thin_metadata_percent', title: 'thin pool: metadata %', thin: true },
];

const PHASE_ORDER: readonly string[] = [START_PHASE, ...LIFECYCLE_PHASES];

const BYTE_UNITS = ['B', 'kB', 'MB', 'GB', 'TB'] as const;

/**
 * Bytes in powers of 1000 with four significant digits, as `system df`
 * prints them ("2.917 kB", "123.8 MB"): a phase that changes the data root by
 * a few hundred kB still shows.
 */
export function bytesText(bytes: number): string {
  let unit = 0;
  while (Math.abs(bytes) >= 1000 ** (unit + 1) && unit < BYTE_UNITS.length - 1) unit++;
  if (unit === 0) return `${Math.round(bytes)} B`;
  const v = bytes / 1000 ** unit;
  const digits = Math.abs(v) >= 100 ? 1 : Math.abs(v) >= 10 ? 2 : 3;
  return `${v.toFixed(digits)} ${BYTE_UNITS[unit]}`;
}

/** A change in bytes: "+20.79 MB", "-8.192 kB", "0 B". */
const signedBytes = (bytes: number) => (bytes > 0 ? `+${bytesText(bytes)}` : bytesText(bytes));

/** "median (min–max)" of one metric over a cell's samples, bytes with their unit. */
function diskCell(samples: readonly Sample[], metric: DiskMetric | typeof GROWTH): { text: string; n: number } {
  const values = samples.filter((s) => s.metric === metric).map((s) => s.value);
  if (!values.length) return { text: '–', n: 0 };
  const text = metric === GROWTH ? signedBytes : DISK_METRICS[metric] === 'B' ? bytesText : fmt;
  const st = describe(values);
  return { text: `${text(st.median)} (${text(st.min)}–${text(st.max)})`, n: st.n };
}

/**
 * Per trial and phase, the bytes the driver holds beyond the trial's start:
 * the thin pool's data used where there is a pool (du cannot see into it),
 * else du of the data root. Differences within one trial, so the tool images
 * and what earlier trials left behind do not count.
 */
export function growthSamples(disk: readonly Sample[]): Sample[] {
  return [...groupBy(disk, (s) => s.trial).values()].flatMap((trial) => {
    const metric = trial.some((s) => s.metric === 'thin_data_bytes') ? 'thin_data_bytes' : 'data_root_bytes';
    const own = trial.filter((s) => s.metric === metric);
    const start = own.find((s) => s.phase === START_PHASE);
    return start ? own.map((s) => ({ ...s, metric: GROWTH, value: s.value - start.value })) : [];
  });
}

/**
 * The disk use after each phase, per host (its driver) and phase: the
 * phases down the table, the hosts side by side in each, so one phase reads
 * across drivers. The thin-pool columns appear when a host has a pool.
 */
export function diskSection({ lab, samples }: SectionContext): Section[] {
  const measured = samples.filter((s) => Object.hasOwn(DISK_METRICS, s.metric));
  if (!measured.length) return [];
  const disk = [...measured, ...growthSamples(measured)];
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
            "Taken after each phase, outside its timing, after a `sync`; **start** is before the trial's first container (the tool images loaded). **held since start**: within each trial, how much more the driver holds than at its start — the thin pool's data used on devicemapper, du of the data root elsewhere. **data root, du**: `du -sx` of the engine's data root (`docker info`'s DockerRootDir, Podman's graphroot) — container file systems mounted inside it are not counted again; on devicemapper it holds only metadata, the data is in the thin pool. **system df**: the engine's `system df` sizes (four significant digits). **thin pool**: `lvs` of docker's direct-lvm pool, data used = pool size × data %. kB, MB, GB: powers of 1000, as `system df` prints them; % of the pool.",
          ),
        ),
        table(header, align, rows),
      ],
    },
  ];
}
