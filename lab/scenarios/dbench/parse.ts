import type { MeasuredValue, ParseResult } from '../types.js';

// dbench 4.0 ends with its operation table and one summary line:
//  Operation      Count    AvgLat    MaxLat
//  ----------------------------------------
//  NTCreateX      63185     0.021    83.061
//  ...
// Throughput 363.416 MB/sec  2 clients  2 procs  max_latency=99.076 ms
const HEADER_RE = /^\s*Operation\s+Count\s+AvgLat\s+MaxLat\s*$/m;
const ROW_RE = /^\s*([A-Za-z]+)\s+(\d+)\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s*$/;
const THROUGHPUT_RE =
  /^Throughput\s+(\d+(?:\.\d+)?)\s+MB\/sec\s+(\d+)\s+clients\s+(\d+)\s+procs\s+max_latency=(\d+(?:\.\d+)?)\s+ms\s*$/m;

/**
 * The final table and throughput line of dbench's output. Throughput is in
 * dbench's MB/sec (10^6 bytes per second); latencies are milliseconds. A run
 * without the final table did not finish (killed, out of space): it fails.
 */
export function parseDbench(raw: string): ParseResult {
  const values: MeasuredValue[] = [];
  const failures: string[] = [];
  const header = HEADER_RE.exec(raw);
  if (!header) {
    const last = raw.trim().split('\n').slice(-2).join(' | ');
    return { values, failures: [`no final operation table in dbench output (last lines: ${last || 'none'})`] };
  }
  const lines = raw.slice(header.index + header[0].length).split('\n');
  let rows = 0;
  for (const line of lines.slice(1)) {
    if (/^\s*-+\s*$/.test(line)) continue;
    const m = ROW_RE.exec(line);
    if (!m) break;
    const [, op, count, avg, max] = m as unknown as [string, string, string, string, string];
    rows++;
    const labels = { op };
    values.push(
      { metric: 'op_count', value: Number(count), unit: 'ops', labels },
      { metric: 'op_avg_latency', value: Number(avg), unit: 'ms', labels },
      { metric: 'op_max_latency', value: Number(max), unit: 'ms', labels },
    );
  }
  if (!rows) failures.push('dbench operation table has no rows');
  const t = THROUGHPUT_RE.exec(raw);
  if (!t) failures.push('no "Throughput … MB/sec … clients … procs max_latency=… ms" line in dbench output');
  else {
    const labels = { op: 'all' };
    values.push(
      { metric: 'throughput', value: Number(t[1]), unit: 'MB/s', labels },
      { metric: 'clients', value: Number(t[2]), unit: 'clients', labels },
      { metric: 'max_latency', value: Number(t[4]), unit: 'ms', labels },
    );
  }
  return { values, failures };
}
