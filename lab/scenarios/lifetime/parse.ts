import { parseTsv } from '../tsv.js';
import type { MeasuredValue, ParseResult } from '../types.js';

export const LIFETIME_PHASES = ['written', 'restart', 'recreate'] as const;
export const LIFETIME_PLACES = ['layer', 'volume', 'bind'] as const;

/**
 * lifetime.tsv: for each phase and place, whether the file written at the
 * start still held its content (1) or not (0). "written" must be all 1, or
 * the test itself did not work.
 */
export function parseLifetime(raw: string): ParseResult {
  const { rows, failures } = parseTsv(raw, ['phase', 'place', 'survived', 'content']);
  const values: MeasuredValue[] = [];
  for (const phase of LIFETIME_PHASES) {
    for (const place of LIFETIME_PLACES) {
      const row = rows.find((r) => r.phase === phase && r.place === place);
      if (!row) {
        failures.push(`lifetime.tsv has no row for ${phase}/${place}`);
        continue;
      }
      const survived = Number(row.survived);
      if (survived !== 0 && survived !== 1) failures.push(`lifetime.tsv: ${phase}/${place} survived="${row.survived}"`);
      if (phase === 'written' && survived !== 1)
        failures.push(`the file on ${place} could not be written and read back`);
      values.push({ metric: 'survived', value: survived, unit: 'bool', labels: { phase, place } });
    }
  }
  return { values, failures };
}
