import { parseTsv } from '../tsv.js';
import type { MeasuredValue, ParseResult } from '../types.js';
import { PERMISSION_CASES } from './cases.js';

/**
 * permissions.tsv: one row per case. Values: whether the container wrote its
 * file (1/0, checked on the host) and its exit status; labels carry what a
 * person reads in the report: the user it ran as, owner and mode inside and
 * outside, the error text.
 */
export function parsePermissions(raw: string): ParseResult {
  const { rows, failures } = parseTsv(raw, ['case', 'user', 'exit_status', 'wrote', 'inside', 'outside', 'error']);
  const values: MeasuredValue[] = [];
  for (const row of rows) {
    if (!PERMISSION_CASES.some((c) => c.name === row.case)) {
      failures.push(`permissions.tsv: unknown case "${row.case}"`);
      continue;
    }
    const wrote = Number(row.wrote);
    const status = Number(row.exit_status);
    if (!Number.isInteger(status) || (wrote !== 0 && wrote !== 1)) {
      failures.push(`permissions.tsv: case ${row.case} has exit_status="${row.exit_status}" wrote="${row.wrote}"`);
      continue;
    }
    // A container that exits 0 without its file (or the reverse) means the probe itself is broken.
    if ((status === 0) !== (wrote === 1)) {
      failures.push(`permissions.tsv: case ${row.case} exited ${status} but wrote=${wrote}`);
    }
    const labels = {
      case: row.case ?? '',
      user: row.user ?? '',
      inside: row.inside ?? '',
      outside: row.outside ?? '',
      error: (row.error ?? '').trim(),
    };
    values.push(
      { metric: 'wrote', value: wrote, unit: 'bool', labels },
      { metric: 'exit_status', value: status, unit: 'status', labels },
    );
  }
  if (!rows.length && !failures.length) failures.push('permissions.tsv has no cases');
  return { values, failures };
}
