import type { MeasuredValue } from '../types.js';

/**
 * The disk-use columns of lifecycle.tsv (guest.sh's disk_state): what the
 * host's storage held after each phase. Runs recorded before these columns
 * existed have none of them and parse as they always did; a file with some
 * of them must have all, and every value is checked before it becomes a
 * sample (the guest is not trusted).
 */
export const DISK_COLUMNS = [
  'data_root_bytes',
  'df_images',
  'df_containers',
  'df_volumes',
  'thin_data_percent',
  'thin_metadata_percent',
  'thin_pool_bytes',
] as const;

/** The disk metrics a lifecycle trial records, each with its unit. */
export const DISK_METRICS = {
  data_root_bytes: 'B',
  df_images_bytes: 'B',
  df_containers_bytes: 'B',
  df_volumes_bytes: 'B',
  thin_data_percent: '%',
  thin_metadata_percent: '%',
  thin_data_bytes: 'B',
} as const;
export type DiskMetric = keyof typeof DISK_METRICS;

/** The row before the first container: the tool images loaded, nothing of the trial yet. */
export const START_PHASE = 'start';

/** Docker's and Podman's `system df` sizes (go-units HumanSize: at most 4 significant digits, powers of 1000). */
const HUMAN_SIZE = /^(\d{1,4}(?:\.\d{1,4})?)(B|kB|MB|GB|TB|PB)$/;
const UNIT_POWER: Record<string, number> = { B: 0, kB: 1, MB: 2, GB: 3, TB: 4, PB: 5 };

/** Bytes of a `system df` size such as "1.634GB"; undefined for anything else. */
export function humanBytes(text: string): number | undefined {
  const m = HUMAN_SIZE.exec(text);
  if (!m?.[1] || !m[2]) return undefined;
  return Math.round(Number(m[1]) * 1000 ** (UNIT_POWER[m[2]] ?? 0));
}

/** Whole bytes as du and lvs print them: digits only, a safe integer. */
function wholeBytes(text: string): number | undefined {
  if (!/^\d{1,16}$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Guest text in a failure reason: short, its control characters escaped. */
export const quote = (text: string | undefined) => JSON.stringify((text ?? '').slice(0, 40));

/** lvs's data% or metadata% with --nosuffix: "0.61", "100.00". */
function percent(text: string): number | undefined {
  if (!/^\d{1,3}(?:\.\d{1,2})?$/.test(text)) return undefined;
  const n = Number(text);
  return n <= 100 ? n : undefined;
}

/** Whether the header has the disk columns: all (true), none (false), or some (a failure). */
export function diskColumnsIn(header: readonly string[]): boolean | string {
  const present = DISK_COLUMNS.filter((c) => header.includes(c));
  if (!present.length) return false;
  if (present.length === DISK_COLUMNS.length) return true;
  const missing = DISK_COLUMNS.filter((c) => !header.includes(c));
  return `lifecycle.tsv has disk columns but lacks ${missing.join(', ')}`;
}

/** A disk value before the caller labels it with its phase. */
type DiskValue = Omit<MeasuredValue, 'labels'>;

const disk = (metric: DiskMetric, value: number): DiskValue => ({ metric, value, unit: DISK_METRICS[metric] });

/**
 * The thin pool's three columns: all "-" (no thin pool: undefined) or all
 * numbers; the data bytes used are its size times data% (what du shows on
 * the other drivers, the seed's question).
 */
function thinValues(row: Record<string, string>, where: string, failures: string[]): DiskValue[] | undefined {
  const raw = [row.thin_data_percent, row.thin_metadata_percent, row.thin_pool_bytes].map((v) => v ?? '');
  if (raw.every((v) => v === '-')) return undefined;
  const [data, meta, size] = [percent(raw[0] ?? ''), percent(raw[1] ?? ''), wholeBytes(raw[2] ?? '')];
  if (data === undefined || meta === undefined || size === undefined || size === 0) {
    failures.push(`${where}: thin pool ${raw.map(quote).join(' ')} is not data%, metadata% and bytes`);
    return [];
  }
  return [
    disk('thin_data_percent', data),
    disk('thin_metadata_percent', meta),
    disk('thin_data_bytes', Math.round((size * data) / 100)),
  ];
}

/**
 * One row's disk values (labels added by the caller). Every field is checked:
 * a value that is not what du, `system df` or lvs print fails the trial.
 * `thin` is whether this row has a thin pool (undefined: no thin columns).
 */
export function parseDiskRow(row: Record<string, string>, failures: string[]): { values: DiskValue[]; thin: boolean } {
  const where = `lifecycle.tsv: ${row.phase}`; // a known phase: the caller checked it
  const before = failures.length;
  const root = wholeBytes(row.data_root_bytes ?? '');
  if (!root) failures.push(`${where}: data_root_bytes ${quote(row.data_root_bytes)} is not a byte count above 0`);
  const sizes = (['images', 'containers', 'volumes'] as const).map((kind) => {
    const text = row[`df_${kind}`] ?? '';
    const bytes = humanBytes(text);
    if (bytes === undefined) failures.push(`${where}: df_${kind} ${quote(text)} is not a size as system df prints it`);
    return disk(`df_${kind}_bytes`, bytes ?? 0);
  });
  const thin = thinValues(row, where, failures);
  if (failures.length > before) return { values: [], thin: thin !== undefined };
  return { values: [disk('data_root_bytes', root ?? 0), ...sizes, ...(thin ?? [])], thin: thin !== undefined };
}
