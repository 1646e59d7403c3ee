import type { ExportModel } from './exporter.js';

/**
 * report.json: the export model itself, as lab/report/report.schema.json
 * describes it. JSON has no Infinity or NaN: a number a statistic cannot
 * bound (an interval's upper end at small n) is written as null, never as
 * a string another tool would have to know about.
 */
export function renderJson(model: ExportModel): string {
  const finite = (_key: string, value: unknown) =>
    typeof value === 'number' && !Number.isFinite(value) ? null : value;
  return `${JSON.stringify(model, finite, 2)}\n`;
}
