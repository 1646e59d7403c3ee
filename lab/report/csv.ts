import type { Sample } from '../run/trial.js';

const CORE = ['run', 'host', 'profile', 'scenario', 'mount', 'rep', 'trial', 'metric', 'value', 'unit', 'timestamp'];

function cell(value: unknown): string {
  const s = value === undefined ? '' : String(value);
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** samples.csv: one sample a row; core labels first, then every scenario label seen. */
export function samplesCsv(samples: readonly Sample[]): string {
  const extra = [...new Set(samples.flatMap((s) => Object.keys(s)).filter((k) => !CORE.includes(k)))].sort();
  const columns = [...CORE, ...extra];
  const lines = [columns.join(',')];
  for (const s of samples) lines.push(columns.map((c) => cell(s[c])).join(','));
  return `${lines.join('\n')}\n`;
}
