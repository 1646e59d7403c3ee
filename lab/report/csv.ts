import { CORE_LABELS, type Sample, scenarioLabels } from '../record/samples.js';
import { csvCell } from '../util/safe-text.js';

/**
 * samples.csv: one sample a row; core labels first, then every scenario label
 * seen. Labels can come from a guest (fio job names, parser output): each
 * cell goes through lab/util/safe-text's csvCell (no control characters, no
 * formula).
 */
export function samplesCsv(samples: readonly Sample[]): string {
  const extra = [...new Set(samples.flatMap((s) => scenarioLabels(s).map(([key]) => key)))].sort();
  const columns = [...CORE_LABELS, ...extra];
  const lines = [columns.map(csvCell).join(',')];
  for (const s of samples) lines.push(columns.map((c) => csvCell(s[c])).join(','));
  return `${lines.join('\n')}\n`;
}
