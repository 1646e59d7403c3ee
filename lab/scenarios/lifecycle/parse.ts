import { parseTsv } from '../tsv.js';
import type { MeasuredValue, ParseResult } from '../types.js';
import { START_PHASE, diskColumnsIn, parseDiskRow, quote } from './disk.js';

/** Phases in the order they run; install/remove are the package churn (optional). */
export const LIFECYCLE_PHASES = ['run', 'inspect', 'stop', 'rm', 'install', 'remove'] as const;
const REQUIRED = ['run', 'inspect', 'stop', 'rm'];

/** The rows' phases: each known and once (a guest's second "run" row would otherwise be ignored). */
function checkPhases(rows: readonly Record<string, string>[], failures: string[]): void {
  const known: readonly string[] = [START_PHASE, ...LIFECYCLE_PHASES];
  const seen = new Set<string>();
  for (const row of rows) {
    const phase = row.phase ?? '';
    if (!known.includes(phase)) failures.push(`lifecycle.tsv: unknown phase ${quote(phase)}`);
    else if (seen.has(phase)) failures.push(`lifecycle.tsv: phase ${phase} twice`);
    seen.add(phase);
  }
}

/** The wall seconds of each phase over all its containers. */
function phaseSeconds(rows: readonly Record<string, string>[], failures: string[]): MeasuredValue[] {
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
      failures.push(`lifecycle.tsv: ${phase} seconds=${quote(row.seconds)} containers=${quote(row.containers)}`);
      continue;
    }
    values.push({ metric: 'seconds', value: seconds, unit: 's', labels: { phase } });
  }
  return values;
}

/**
 * The disk use after each phase and at the start (the start row's own
 * fields must say it timed nothing); a thin pool on some rows and not on
 * others is refused (a pool does not come and go within a trial).
 */
function diskUse(rows: readonly Record<string, string>[], failures: string[]): MeasuredValue[] {
  const start = rows.find((r) => r.phase === START_PHASE);
  if (!start) failures.push(`lifecycle.tsv has no ${START_PHASE} row (the disk use before the first container)`);
  else if (start.containers !== '0' || start.seconds !== '-')
    failures.push(`lifecycle.tsv: start containers=${quote(start.containers)} seconds=${quote(start.seconds)}`);
  const values: MeasuredValue[] = [];
  const thin = new Set<boolean>();
  for (const row of rows) {
    const phase = row.phase ?? '';
    const parsed = parseDiskRow(row, failures);
    thin.add(parsed.thin);
    values.push(...parsed.values.map((v) => ({ ...v, labels: { phase } })));
  }
  if (thin.size > 1) failures.push('lifecycle.tsv: a thin pool on some rows and not on others');
  return values;
}

/** lifecycle.tsv: wall seconds of each phase over all its containers, and the disk use after it. */
export function parseLifecycle(raw: string): ParseResult {
  const header =
    raw
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.split('\t') ?? [];
  const { rows, failures } = parseTsv(raw, ['phase', 'containers', 'seconds']);
  checkPhases(rows, failures);
  const values = phaseSeconds(rows, failures);
  const disk = diskColumnsIn(header);
  if (typeof disk === 'string') failures.push(disk);
  // Only rows of known phases reach the disk checks (checkPhases refused the others).
  else if (disk && !failures.some((f) => f.includes('unknown phase'))) values.push(...diskUse(rows, failures));
  return { values, failures };
}
