import { CORE_LABELS, type Sample, scenarioLabels } from '../record/samples.js';

/** A plain decimal number: a spreadsheet reads it as a number, never as a formula. */
const PLAIN_NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
/** What makes a spreadsheet read a cell as a formula (OWASP CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell. Labels can come from a guest (fio job names, parser output):
 * a text cell that a spreadsheet would run as a formula gets a leading single
 * quote inside a quoted field; numbers, negative ones included, stay numbers.
 */
function cell(value: unknown): string {
  if (typeof value === 'number') return String(value);
  const s = value === undefined ? '' : String(value);
  if (FORMULA_START.test(s) && !PLAIN_NUMBER.test(s)) return `"'${s.replaceAll('"', '""')}"`;
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** samples.csv: one sample a row; core labels first, then every scenario label seen. */
export function samplesCsv(samples: readonly Sample[]): string {
  const extra = [...new Set(samples.flatMap((s) => scenarioLabels(s).map(([key]) => key)))].sort();
  const columns = [...CORE_LABELS, ...extra];
  const lines = [columns.join(',')];
  for (const s of samples) lines.push(columns.map((c) => cell(s[c])).join(','));
  return `${lines.join('\n')}\n`;
}
