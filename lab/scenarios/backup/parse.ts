import { parseTsv } from '../tsv.js';
import type { MeasuredValue, ParseResult } from '../types.js';

export const BACKUP_METHODS = ['host-bind', 'host-volume', 'helper-container'] as const;

/**
 * backup.tsv: one row per method (in the order they ran). An archive that does
 * not list every file of the dataset is a failed trial, whatever its time.
 */
export function parseBackup(raw: string): ParseResult {
  const { rows, failures } = parseTsv(raw, [
    'method',
    'position',
    'seconds',
    'archive_bytes',
    'files',
    'expected_files',
  ]);
  const values: MeasuredValue[] = [];
  for (const method of BACKUP_METHODS) {
    const row = rows.find((r) => r.method === method);
    if (!row) {
      failures.push(`backup.tsv has no row for method ${method}`);
      continue;
    }
    const seconds = Number(row.seconds);
    const bytes = Number(row.archive_bytes);
    const files = Number(row.files);
    const expected = Number(row.expected_files);
    if (!(seconds > 0) || !(bytes > 0))
      failures.push(`${method}: seconds="${row.seconds}" archive_bytes="${row.archive_bytes}"`);
    if (files !== expected) failures.push(`${method}: the archive lists ${files} files, the dataset has ${expected}`);
    const labels = { method };
    values.push(
      { metric: 'seconds', value: seconds, unit: 's', labels },
      { metric: 'archive_bytes', value: bytes, unit: 'B', labels },
      { metric: 'files', value: files, unit: 'files', labels },
      { metric: 'position', value: Number(row.position), unit: 'th', labels },
    );
  }
  return { values, failures };
}
