import { constants } from 'node:os';
import type { MeasuredValue, ParseResult } from '../types.js';

type Direction = 'read' | 'write';

/** The four jobs of seed 003, in the order fio runs them (stonewalled). */
export const FIO_JOBS = [
  { name: 'seqwrite', rw: 'write', bs: 'seq', direction: 'write' },
  { name: 'seqread', rw: 'read', bs: 'seq', direction: 'read' },
  { name: 'randwrite', rw: 'randwrite', bs: 'rand', direction: 'write' },
  { name: 'randread', rw: 'randread', bs: 'rand', direction: 'read' },
] as const satisfies readonly { name: string; rw: string; bs: 'seq' | 'rand'; direction: Direction }[];

export const FIO_JOB_NAMES = FIO_JOBS.map((j) => j.name) as [
  (typeof FIO_JOBS)[number]['name'],
  ...(typeof FIO_JOBS)[number]['name'][],
];

interface FioDirectionStats {
  io_bytes?: number;
  bw?: number;
  iops?: number;
  clat_ns?: { mean?: number; percentile?: Record<string, number> };
}

interface FioJob {
  jobname?: string;
  error?: number;
  read?: FioDirectionStats;
  write?: FioDirectionStats;
}

const errnoNames = new Map<number, string>(
  Object.entries(constants.errno).map(([name, code]) => [code as number, name]),
);

/**
 * fio prints warnings and errors ("fio: ...") on stdout before its JSON when
 * --output-format=json is used without --output; so the JSON object starts at
 * the first line that begins with "{" and ends at the last "}".
 */
export function extractJson(raw: string): { json?: unknown; preamble: string; error?: string } {
  const start = raw.search(/^\{/m);
  const end = raw.lastIndexOf('}');
  if (start < 0 || end < start) return { preamble: raw.trim(), error: 'no JSON object in fio output' };
  const preamble = raw.slice(0, start).trim();
  try {
    return { json: JSON.parse(raw.slice(start, end + 1)), preamble };
  } catch (err) {
    return { preamble, error: `fio JSON does not parse: ${(err as Error).message}` };
  }
}

const nsToUs = (ns: number) => ns / 1000;

function directionValues(job: string, direction: Direction, stats: FioDirectionStats): MeasuredValue[] {
  const labels = { job, direction };
  const values: MeasuredValue[] = [];
  const push = (metric: string, value: number | undefined, unit: string) => {
    if (typeof value === 'number' && Number.isFinite(value)) values.push({ metric, value, unit, labels });
  };
  // fio's "bw" is KiB/s (1024 bytes), whatever its human-readable output says.
  push('bw', stats.bw, 'KiB/s');
  push('iops', stats.iops, 'IO/s');
  const clat = stats.clat_ns;
  push('clat_mean', clat?.mean === undefined ? undefined : nsToUs(clat.mean), 'us');
  const pct = clat?.percentile ?? {};
  const at = (p: string) => (pct[p] === undefined ? undefined : nsToUs(pct[p]));
  push('clat_p50', at('50.000000'), 'us');
  push('clat_p99', at('99.000000'), 'us');
  return values;
}

export function parseFioJson(raw: string): ParseResult {
  const { json, preamble, error } = extractJson(raw);
  if (error) return { values: [], failures: [preamble ? `${error}; fio said: ${preamble}` : error] };
  const jobs = (json as { jobs?: FioJob[] }).jobs;
  if (!Array.isArray(jobs) || jobs.length === 0) return { values: [], failures: ['fio JSON has no jobs'] };

  const values: MeasuredValue[] = [];
  const failures: string[] = [];
  for (const job of jobs) {
    const name = job.jobname ?? '?';
    if (job.error) {
      // A failed job's zero bandwidth is not a measurement.
      const errno = errnoNames.get(job.error);
      failures.push(`fio job ${name} failed with error ${job.error}${errno ? ` (${errno})` : ''}`);
      continue;
    }
    const known = FIO_JOBS.find((j) => j.name === name);
    const directions: Direction[] = known ? [known.direction] : ['read', 'write'];
    let measured = false;
    for (const direction of directions) {
      const stats = job[direction];
      if (!stats || !(stats.io_bytes && stats.io_bytes > 0)) continue;
      values.push(...directionValues(name, direction, stats));
      measured = true;
    }
    if (!measured) failures.push(`fio job ${name} did no I/O`);
  }
  return { values, failures };
}
