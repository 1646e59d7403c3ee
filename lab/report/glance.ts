import { seriesOf } from '../analyze/comparison-rows.js';
import { describe } from '../analyze/stats.js';
import type { ComparisonRow, ScenarioAnalysis } from '../analyze/types.js';
import { EQUIVALENCE_MARGIN, withinMargin } from '../analyze/verdict.js';
import type { RecordedLab } from '../record/load.js';
import type { MetricSpec } from '../scenarios/metric.js';
import { fmt } from './format.js';
import {
  type Cell,
  type Inline,
  type Matrix,
  type MatrixCell,
  type MatrixColumn,
  type MatrixRow,
  type MatrixVerdict,
  type Table,
  bold,
  inline,
  plain,
  table,
} from './model.js';
import { mountOrder } from './tables.js';

/**
 * The report at a glance: the matrix of setups (hosts) against workloads,
 * each cell the ratio to the baseline setup with its interval and verdict.
 * Built here once as data (a Matrix block); report.md draws it as a table
 * (matrixTable), report.html as a coloured table (glance-html.ts).
 */

const margin = `±${(EQUIVALENCE_MARGIN * 100).toFixed(0)}%`;

/**
 * Each verdict's word and sign, the same in report.md and report.html: a
 * cell reads without its colour (grey-scale, a printout, a colour-blind
 * reader). The words are the analysis's own (lab/analyze/verdict.ts).
 */
export const MATRIX_VERDICTS: Readonly<Record<MatrixVerdict, { word: string; sign: string; meaning: string }>> = {
  better: { word: 'better', sign: '▲', meaning: 'a difference the report claims: this setup is better' },
  worse: { word: 'worse', sign: '▼', meaning: 'a difference the report claims: this setup is worse' },
  equivalent: {
    word: `within ${margin}`,
    sign: '=',
    meaning: `no difference, and the 90% interval lies within ${margin}: equivalent`,
  },
  'no-difference': {
    word: 'no consistent difference',
    sign: '?',
    meaning: `no difference shown, and the interval reaches beyond ${margin}: cannot tell`,
  },
  'too-few-runs': { word: 'too few runs', sign: '…', meaning: 'this n cannot show a difference at 95%' },
  'no-ratio': { word: 'no ratio', sign: '×', meaning: 'a value is zero or negative: no ratio' },
  baseline: { word: 'baseline', sign: '◆', meaning: 'the setup the others are compared with: its median' },
  'no-data': { word: 'no data', sign: '–', meaning: 'no values of this setup in this workload' },
};

/** Verdicts in the legend's order. */
export const MATRIX_VERDICT_ORDER = Object.keys(MATRIX_VERDICTS) as MatrixVerdict[];

/** Text safe as an HTML id and URL fragment whatever a guest named its series: letters, digits, '-'. */
const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '') || 'x';

/** The id of a comparison's row in its scenario's Comparisons table: what a matrix cell links to. */
export function comparisonAnchor(scenario: string, row: ComparisonRow): string {
  return ['cmp', scenario, row.axis, row.within, row.series, row.metric.name, row.a, 'vs', row.b].map(slug).join('-');
}

/** The scenarios' workloads in the matrix metric: series (as the parser wrote them) × mount kinds (the lab's order). */
function columnsOf(
  scenario: ScenarioAnalysis,
  metric: MetricSpec,
  lab: RecordedLab,
): { column: MatrixColumn; values: Map<string, number[]> }[] {
  const samples = scenario.samples.filter((s) => s.metric === metric.name);
  const mounts = mountOrder(lab, samples);
  const series = [...new Set(samples.map(seriesOf))];
  return series.flatMap((ser) =>
    mounts.flatMap((mount) => {
      const own = samples.filter((s) => s.mount === mount && seriesOf(s) === ser);
      if (!own.length) return [];
      const values = new Map<string, number[]>();
      for (const s of own) values.set(s.host, [...(values.get(s.host) ?? []), s.value]);
      return [{ column: { scenario: scenario.name, series: ser, mount, metric }, values }];
    }),
  );
}

/** A setup's cell from the comparison of the baseline with it (either side), read from the setup's side. */
function comparedCell(scenario: string, row: ComparisonRow, host: string): MatrixCell {
  const r = row.result;
  const flip = row.b === host;
  const n = flip ? r.nB : r.nA;
  const invert = (x: number | undefined) => (x === undefined ? undefined : flip ? 1 / x : x);
  const [lo, hi] = flip ? [invert(r.hi), invert(r.lo)] : [r.lo, r.hi];
  let verdict: MatrixVerdict;
  if (r.verdict === 'a-better' || r.verdict === 'b-better')
    verdict = (r.verdict === 'b-better') === flip ? 'better' : 'worse';
  else if (r.verdict === 'no-difference') verdict = withinMargin(r) ? 'equivalent' : 'no-difference';
  else if (r.verdict === 'not-enough-runs') verdict = r.nA && r.nB ? 'too-few-runs' : 'no-data';
  else verdict = 'no-ratio';
  return {
    verdict,
    ...(r.ratio !== undefined ? { ratio: invert(r.ratio), lo, hi } : {}),
    n,
    detail: comparisonAnchor(scenario, row),
  };
}

/**
 * The matrix of a run: the lab's hosts down (the first is the baseline),
 * each scenario's workloads in its matrix metric across. A setup's cell is
 * the comparison of the baseline with it on the same mount kind (the
 * analysis's profile axis, verdicts as the report controls them); the
 * baseline's cell is its median. Undefined when no scenario has a matrix
 * metric (outcome scenarios only).
 */
export function matrixBlock(
  analysis: readonly ScenarioAnalysis[],
  lab: RecordedLab,
  matrixMetric: (scenario: string) => MetricSpec | undefined,
): Matrix | undefined {
  const workloads = analysis.flatMap((scenario) => {
    const metric = matrixMetric(scenario.name);
    return metric ? columnsOf(scenario, metric, lab).map((w) => ({ ...w, rows: scenario.comparisons })) : [];
  });
  const hosts = lab.hosts.length
    ? lab.hosts
    : [
        ...new Map(
          analysis.flatMap((a) => a.samples).map((s) => [s.host, { name: s.host, profile: s.profile }]),
        ).values(),
      ];
  const baseline = hosts[0];
  if (!workloads.length || !baseline) return undefined;
  const rows = hosts.map(({ name, profile }): MatrixRow => {
    const cells = workloads.map(({ column, values, rows: comparisons }): MatrixCell => {
      const own = values.get(name) ?? [];
      if (name === baseline.name) {
        return own.length
          ? { verdict: 'baseline', median: describe(own).median, n: own.length }
          : { verdict: 'no-data', n: 0 };
      }
      const row = comparisons.find(
        (r) =>
          r.axis === 'profile' &&
          r.within === column.mount &&
          r.series === column.series &&
          r.metric.name === column.metric.name &&
          ((r.a === baseline.name && r.b === name) || (r.a === name && r.b === baseline.name)),
      );
      return row ? comparedCell(column.scenario, row, name) : { verdict: 'no-data', n: own.length };
    });
    return { host: name, profile, cells };
  });
  return { kind: 'matrix', baseline: baseline.name, columns: workloads.map((w) => w.column), rows };
}

/** "0.70 (0.68–0.72)": a ratio with its 95% interval, "∞" where this n cannot bound it. */
export function ratioText(cell: MatrixCell): string {
  if (cell.ratio === undefined) return '';
  const num = (x: number | undefined) => (x === undefined ? '?' : Number.isFinite(x) ? x.toFixed(2) : '∞');
  return `${num(cell.ratio)} (${num(cell.lo)}–${num(cell.hi)})`;
}

/** What a column is: "fio bw randread/read layer" (no series, no mount "none"). */
export function columnText(column: MatrixColumn): string {
  return [column.scenario, column.metric.name, column.series, column.mount === 'none' ? '' : column.mount]
    .filter(Boolean)
    .join(' ');
}

export const setupText = (row: MatrixRow) => `${row.host} (${row.profile})`;

/** A cell as one line of text: sign and verdict word (bold when the report claims a difference), then the numbers. */
export function cellInline(cell: MatrixCell, column: MatrixColumn): Inline {
  const { sign, word } = MATRIX_VERDICTS[cell.verdict];
  const label = cell.verdict === 'better' || cell.verdict === 'worse' ? bold(word) : plain(word);
  if (cell.verdict === 'baseline') return inline`${sign} ${label} ${fmt(cell.median as number)} ${column.metric.unit}`;
  const numbers = ratioText(cell);
  return inline`${sign} ${label}${numbers ? ` ${numbers}` : ''}`;
}

/** The matrix as a table (report.md): a row per setup, a column per workload. */
export function matrixTable(matrix: Matrix): Table {
  return table(
    ['setup', ...matrix.columns.map(columnText)],
    ['left', ...matrix.columns.map(() => 'left' as const)],
    matrix.rows.map((row): Cell[] => [
      plain(setupText(row)),
      ...row.cells.map((cell, i) => cellInline(cell, matrix.columns[i] as MatrixColumn)),
    ]),
  );
}

/** How to read the matrix: what a cell is and where its details are (the cells name their verdicts). */
export function matrixLegend(matrix: Matrix): Inline {
  const base = matrix.rows.find((r) => r.host === matrix.baseline);
  return inline`Each cell: the setup's typical value divided by the baseline's — ${base ? setupText(base) : matrix.baseline}, the first row — on the same workload (Hodges–Lehmann ratio, 95% interval), and the report's verdict, controlled across all its comparisons; better follows each metric's direction (more bandwidth, less time). Each cell's comparison is in its scenario's Comparisons.`;
}
