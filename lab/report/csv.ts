import { CORE_LABELS, type Sample, scenarioLabels } from '../run/trial.js';

function cell(value: unknown): string {
  const s = value === undefined ? '' : String(value);
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** samples.csv: one sample a row; core labels first, then every scenario label seen. */
export function samplesCsv(samples: readonly Sample[]): string {
  const extra = [...new Set(samples.flatMap((s) => scenarioLabels(s).map(([key]) => key)))].sort();
  const columns = [...CORE_LABELS, ...extra];
  const lines = [columns.join(',')];
  for (const s of samples) lines.push(columns.map((c) => cell(s[c])).join(','));
  return `${lines.join('\n')}\n`;
}
