/**
 * Tab-separated raw files the guest scripts write: a header line, then one row
 * per line. Rows are keyed by the header, so a reordered column still parses;
 * a missing column or a short row is a failure, not a silent blank.
 */
export function parseTsv(
  raw: string,
  required: readonly string[],
): { rows: Record<string, string>[]; failures: string[] } {
  const lines = raw.split('\n').filter((l) => l.trim() !== '');
  const failures: string[] = [];
  const header = lines[0]?.split('\t') ?? [];
  const missing = required.filter((c) => !header.includes(c));
  if (!lines.length) return { rows: [], failures: ['empty output'] };
  if (missing.length) return { rows: [], failures: [`header lacks column(s) ${missing.join(', ')}`] };
  const rows: Record<string, string>[] = [];
  lines.slice(1).forEach((line, i) => {
    const cells = line.split('\t');
    if (cells.length < header.length) {
      failures.push(`line ${i + 2}: ${cells.length} of ${header.length} columns`);
      return;
    }
    rows.push(Object.fromEntries(header.map((h, j) => [h, cells[j] ?? ''])));
  });
  return { rows, failures };
}
