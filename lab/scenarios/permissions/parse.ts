import { parseTsv } from '../tsv.js';
import type { MeasuredValue, ParseResult } from '../types.js';
import { PERMISSION_CASES } from './cases.js';

/**
 * The columns guest.sh added for the written file's owner and the host
 * user's access. Trials recorded before them have none of the three and
 * still parse: their samples carry no file owner and no host-user values,
 * which the claims read as "not measured in this run".
 */
const HOST_COLUMNS = ['file_owner', 'host_list', 'host_read'] as const;

/** "uid:gid" as stat prints it: two decimal ids, nothing else. */
const UID_GID = /^\d{1,10}:\d{1,10}$/;

type Row = Record<string, string>;

/**
 * The new columns of one row, checked against what the guest can have seen:
 * a file owner exactly where the container wrote; for a volume, the host
 * user's 1/0 for listing, and for reading where there was a file to read;
 * "-" everywhere else. Returns why the row is refused, or the values to keep.
 */
function hostColumns(
  row: Row,
  source: 'bind' | 'volume',
  wrote: number,
): { problem: string } | { fileOwner: string; list?: number; read?: number } {
  const { file_owner: owner = '', host_list: list = '', host_read: read = '' } = row;
  const flag = (v: string) => (v === '0' || v === '1' ? Number(v) : undefined);
  const bad = (what: string, expected: string) => ({
    problem: `permissions.tsv: case ${row.case} (${source}, wrote=${wrote}) has ${what}, expected ${expected}`,
  });
  const fileOwner = wrote === 1 ? owner : '';
  if (wrote === 1 ? !UID_GID.test(owner) : owner !== '-')
    return bad(`file_owner="${owner}"`, wrote === 1 ? 'uid:gid' : '-');
  if (source === 'bind')
    return list === '-' && read === '-' ? { fileOwner } : bad(`host_list="${list}" host_read="${read}"`, '- and -');
  const listed = flag(list);
  if (listed === undefined) return bad(`host_list="${list}"`, '0 or 1');
  if (wrote === 0) return read === '-' ? { fileOwner, list: listed } : bad(`host_read="${read}"`, '- (no file)');
  const readIt = flag(read);
  if (readIt === undefined) return bad(`host_read="${read}"`, '0 or 1');
  return { fileOwner, list: listed, read: readIt };
}

/**
 * permissions.tsv: one row per case. Values: whether the container wrote its
 * file (1/0, checked on the host) and its exit status; for a volume, whether
 * the host user (uid 1000) could list its `_data` and read the file written
 * there (1/0). Labels carry what a person reads in the report: the user it
 * ran as, owner and mode inside and outside, the written file's owner, the
 * error text. Every value is the guest's: checked before it lands.
 */
export function parsePermissions(raw: string): ParseResult {
  const { rows, failures } = parseTsv(raw, ['case', 'user', 'exit_status', 'wrote', 'inside', 'outside', 'error']);
  const values: MeasuredValue[] = [];
  const header = Object.keys(rows[0] ?? {});
  const present = HOST_COLUMNS.filter((c) => header.includes(c));
  const hasHostColumns = present.length === HOST_COLUMNS.length;
  if (present.length && !hasHostColumns) {
    failures.push(
      `permissions.tsv: header has ${present.join(', ')} but not ${HOST_COLUMNS.filter((c) => !present.includes(c)).join(', ')}`,
    );
    return { values, failures };
  }
  for (const row of rows) {
    const c = PERMISSION_CASES.find((x) => x.name === row.case);
    if (!c) {
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
    const host = hasHostColumns ? hostColumns(row, c.source, wrote) : undefined;
    if (host && 'problem' in host) {
      failures.push(host.problem);
      continue;
    }
    const labels = {
      case: c.name,
      user: row.user ?? '',
      inside: row.inside ?? '',
      outside: row.outside ?? '',
      ...(host ? { file_owner: host.fileOwner } : {}),
      error: (row.error ?? '').trim(),
    };
    values.push(
      { metric: 'wrote', value: wrote, unit: 'bool', labels },
      { metric: 'exit_status', value: status, unit: 'status', labels },
    );
    if (host?.list !== undefined) values.push({ metric: 'host_list', value: host.list, unit: 'bool', labels });
    if (host?.read !== undefined) values.push({ metric: 'host_read', value: host.read, unit: 'bool', labels });
  }
  if (!rows.length && !failures.length) failures.push('permissions.tsv has no cases');
  return { values, failures };
}
