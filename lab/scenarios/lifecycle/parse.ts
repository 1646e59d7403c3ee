import { parseTsv } from '../tsv.js';
import type { MeasuredValue, ParseResult } from '../types.js';

/** Phases in the order they run; install/remove are the package churn (optional). */
export const LIFECYCLE_PHASES = ['run', 'inspect', 'stop', 'rm', 'install', 'remove'] as const;
const REQUIRED = ['run', 'inspect', 'stop', 'rm'];

/** lifecycle.tsv: wall seconds of each phase over all its containers. */
export function parseLifecycle(raw: string): ParseResult {
  const { rows, failures } = parseTsv(raw, ['phase', 'containers', 'seconds']);
  const values: MeasuredValue[] = [];
  for (const phase of LIFECYCLE_PHASES) {
    const row = rows.find((r) => r.phase === phase);
    if (!row) {
      if (REQUIRED.includes(phase)) failures.push(`lifecycle.tsv has no ${phase} phase`);
      continue;
    }
    const seconds = Number(row.seconds);
    const containers = Number(row.containers);
    if (!(seconds > 0) || !(containers > 0)) {
      failures.push(`lifecycle.tsv: ${phase} seconds="${row.seconds}" containers="${row.containers}"`);
      continue;
    }
    values.push({ metric: 'seconds', value: seconds, unit: 's', labels: { phase } });
  }
  return { values, failures };
}
