import { parseTsv } from '../tsv.js';
import type { MeasuredValue, ParseResult } from '../types.js';

/** The tables make-dump.pl writes; each must be counted after the import. */
export const DUMP_TABLES = ['page', 'revision', 'text'] as const;

/**
 * db-import.tsv: one line — import seconds, rows per table as
 * "table=rows/expected,…", the dump's sizes and sha256, the server version.
 * An import that left any table short is a failed trial, however fast.
 */
export function parseDbImport(raw: string): ParseResult {
  const { rows, failures } = parseTsv(raw, ['seconds', 'rows', 'dump_bytes', 'sql_bytes']);
  const values: MeasuredValue[] = [];
  const row = rows[0];
  if (!row) return { values, failures: failures.length ? failures : ['db-import.tsv has no result line'] };
  const seconds = Number(row.seconds);
  if (!(seconds > 0)) failures.push(`import seconds="${row.seconds}"`);
  const tables = (row.rows ?? '').split(',').filter(Boolean);
  if (!tables.length) failures.push('no row counts after the import');
  let total = 0;
  for (const t of tables) {
    const m = /^([a-z_]+)=(\d+)\/(\d+)$/.exec(t);
    if (!m) {
      failures.push(`row count "${t}" is not table=rows/expected`);
      continue;
    }
    const [, table, got, expected] = m as unknown as [string, string, string, string];
    if (got !== expected) failures.push(`table ${table} has ${got} rows after the import, the dump has ${expected}`);
    total += Number(got);
  }
  for (const table of DUMP_TABLES) {
    if (!tables.some((t) => t.startsWith(`${table}=`))) failures.push(`no row count for table ${table}`);
  }
  const sqlBytes = Number(row.sql_bytes);
  values.push(
    { metric: 'seconds', value: seconds, unit: 's', labels: {} },
    { metric: 'rows_per_second', value: total / seconds, unit: 'rows/s', labels: {} },
    { metric: 'sql_mb_per_second', value: sqlBytes / 1e6 / seconds, unit: 'MB/s', labels: {} },
    { metric: 'dump_bytes', value: Number(row.dump_bytes), unit: 'B', labels: {} },
  );
  return { values, failures };
}
