import type { TopLevelSpec } from 'vega-lite';
import type { ComparisonRow, ScenarioAnalysis } from '../analyze/types.js';
import type { RecordedLab } from '../record/load.js';
import type { Sample } from '../record/samples.js';
import type { MetricSpec } from '../scenarios/metric.js';
import { type ParameterLine, type SeedParameter, sourceText } from './seed-facts.js';

/**
 * The report as data: sections of blocks, built once from a run and its
 * analysis (build.ts) and rendered by two renderers that know nothing of each
 * other — markdown.ts (report.md) and html.ts (report.html). A wording change
 * touches the builders; a layout change touches one renderer.
 */

/** A piece of inline text: plain, a code span, bold (or both). */
export interface Run {
  text: string;
  code?: true;
  bold?: true;
}

/** Inline text: runs in order. Plain runs are shown as they are (never read as markup). */
export type Inline = readonly Run[];

/** A paragraph; its lines are one paragraph (report.md keeps the line breaks, HTML joins them). */
export interface Paragraph {
  kind: 'paragraph';
  lines: readonly Inline[];
}

export type Align = 'left' | 'right';

/** A cell with no content at all (e.g. the columns of a host whose summary is unreadable). */
export const NO_CELL = null;
export type Cell = Inline | typeof NO_CELL;

export interface Table {
  kind: 'table';
  header: readonly Inline[];
  align: readonly Align[];
  rows: readonly (readonly Cell[])[];
  /** Each row's anchor (report.html's id, what the matrix links to); letters, digits and '-' only. */
  rowIds?: readonly string[];
}

export interface ListItem {
  text: Inline;
  items: readonly Inline[];
}

/** A list, two levels deep at most. */
export interface List {
  kind: 'list';
  items: readonly ListItem[];
}

/**
 * A plot (HTML draws it as SVG; report.md has no plots). Without a spec the
 * caption says why there is no plot.
 */
export interface Figure {
  kind: 'figure';
  caption: Inline;
  spec?: TopLevelSpec;
}

/**
 * The seeds' headline claims, answered with this run's numbers. A claim of
 * direction is "confirmed" only when every comparison it rests on shows the
 * claimed direction (the report's family-controlled verdict);
 * "contradicted" when a comparison shows the opposite; otherwise "not shown"
 * with the reason. Its size is judged apart: the seed's own factor against
 * our interval. A claim of no gap is an equivalence statement with a margin.
 */
export interface ClaimAnswer {
  seed: string;
  claim: string;
  answer: 'confirmed' | 'contradicted' | 'not shown';
  /** The seed's figure against our intervals (claims of direction that quote one). */
  size?: 'as the seed' | 'contradicted' | 'not shown';
  evidence: string[];
  /** The seed's parameters beside this run's (claims.ts fills them in from the rule's seedParameters). */
  parameters?: readonly ParameterLine[];
}

export interface Claims {
  kind: 'claims';
  answers: readonly ClaimAnswer[];
}

/**
 * How a setup fares against the baseline setup in one workload: the
 * analysis's verdict of their comparison, read from the setup's side.
 * "equivalent" is a comparison with no difference shown whose 90% interval
 * lies within ±EQUIVALENCE_MARGIN (the no-gap test the seed claims use).
 */
export type MatrixVerdict =
  | 'better'
  | 'worse'
  | 'equivalent'
  | 'no-difference'
  | 'too-few-runs'
  | 'no-ratio'
  | 'baseline'
  | 'no-data';

/** A workload of the matrix: one scenario's series on one mount kind, in its headline metric. */
export interface MatrixColumn {
  scenario: string;
  /** The series (fio: "randread/read"); empty when the scenario has none. */
  series: string;
  /** The mount kind; "none" for scenarios that bring their own storage. */
  mount: string;
  /** The scenario's matrix metric (Scenario.matrixMetric). */
  metric: MetricSpec;
}

export interface MatrixCell {
  verdict: MatrixVerdict;
  /** This setup's typical value over the baseline's (Hodges–Lehmann) with its 95% interval; 0 and Infinity where unbounded. */
  ratio?: number;
  lo?: number;
  hi?: number;
  /** The baseline's row: its median. */
  median?: number;
  /** Values this setup has in the workload. */
  n: number;
  /** The row id of the comparison in the details (a Table's rowIds), absent on the baseline. */
  detail?: string;
}

/** A setup: a host (its profile) and its cell per column. */
export interface MatrixRow {
  host: string;
  profile: string;
  cells: readonly MatrixCell[];
}

/**
 * The report at a glance: setups down (the lab's hosts, the first the
 * baseline), workloads across, each cell the ratio to the baseline with
 * its interval and verdict. Built once (glance.ts); both renderers draw it.
 */
export interface Matrix {
  kind: 'matrix';
  baseline: string;
  columns: readonly MatrixColumn[];
  rows: readonly MatrixRow[];
}

export type Block = Paragraph | Table | List | Figure | Claims | Matrix;

export interface Section {
  level: 1 | 2 | 3;
  title: Inline;
  blocks: readonly Block[];
}

export interface Report {
  /** The page title (report.html's <title>); the first section shows it as its heading. */
  title: string;
  sections: readonly Section[];
}

/** What a scenario's report section is built from. */
export interface SectionContext {
  /** This scenario's samples. */
  samples: readonly Sample[];
  /** The lab as the run recorded it: host order and mount order of the tables. */
  lab: RecordedLab;
  /** This scenario's comparisons, verdicts controlled across the report's family. */
  comparisons: readonly ComparisonRow[];
}

/** A scenario's part of the report under its heading: a lead (what the tables show), then sub-sections. */
export interface ScenarioSection {
  blocks: readonly Block[];
  sections: readonly Section[];
}

/** What a seed claim is answered from. */
export interface ClaimContext {
  analysis: readonly ScenarioAnalysis[];
  lab: RecordedLab;
}

/** One seed claim a scenario's data can answer. */
export interface ClaimRule {
  /**
   * Where the claim stands among the report's seed claims (ascending; the
   * order they have always been listed in: 10 lifecycle's 004, 20 fio's 003,
   * 30 db-import's 000, 40 dbench's 002, 50 permissions' 003; then 60
   * backup's 003). A scenario's further claims follow its first: 11–14
   * lifecycle, 21 fio, 41 dbench, 51 permissions, 55 lifetime, 61 backup.
   */
  position: number;
  /** The answer, or undefined when the run has no data for it (the claim is left out). */
  answer(ctx: ClaimContext): ClaimAnswer | undefined;
  /**
   * The parameters of the seed's experiment behind this claim (the
   * scenario's seed.ts): the report lists every one this run does not share.
   */
  seedParameters?: readonly SeedParameter[];
  /**
   * The hosts whose data the claim judges (their storage stacks are the
   * seed parameters' `stack` lines); every host of the lab when absent.
   */
  hosts?(ctx: ClaimContext): readonly string[];
}

/** A scenario's registration in the report: its section and the seed claims it answers. */
export interface ScenarioReport {
  section(ctx: SectionContext): ScenarioSection;
  /** Empty when the scenario answers no seed claim. */
  claims: readonly ClaimRule[];
}

/** Plain text: shown as it is, whatever characters it holds (guest data goes in as this). */
export const plain = (text: string | number): Inline => [{ text: String(text) }];
export const bold = (text: string | number): Inline => [{ text: String(text), bold: true }];
export const code = (text: string | number): Inline => [{ text: String(text), code: true }];

/** Adjacent runs of the same style become one (so `**${n} things**` stays one bold run). */
function pushRun(runs: Run[], run: Run): void {
  if (!run.text) return;
  const last = runs.at(-1);
  if (last && last.code === run.code && last.bold === run.bold) last.text += run.text;
  else runs.push({ ...run });
}

const styled = (text: string, style: { code: boolean; bold: boolean }): Run => ({
  text,
  ...(style.code ? { code: true as const } : {}),
  ...(style.bold ? { bold: true as const } : {}),
});

/**
 * Inline text from a template: the literal parts are the report's own prose,
 * where `code` and **bold** mark style (a style may span an interpolation);
 * interpolated strings and numbers are plain text in the style around them —
 * never read as markup — and interpolated Inline keeps its own runs.
 */
export function inline(literals: TemplateStringsArray, ...values: readonly (string | number | Inline)[]): Inline {
  const runs: Run[] = [];
  const style = { code: false, bold: false };
  literals.forEach((literal, i) => {
    let text = '';
    for (let at = 0; at < literal.length; at++) {
      const marker = literal[at] === '`' ? 'code' : literal.startsWith('**', at) && !style.code ? 'bold' : undefined;
      if (!marker) {
        text += literal[at];
        continue;
      }
      pushRun(runs, styled(text, style));
      text = '';
      style[marker] = !style[marker];
      if (marker === 'bold') at++;
    }
    pushRun(runs, styled(text, style));
    const value = values[i];
    if (value === undefined) return;
    if (typeof value === 'string' || typeof value === 'number') pushRun(runs, styled(String(value), style));
    else
      for (const run of value)
        pushRun(runs, {
          ...run,
          ...styled(run.text, { code: style.code || !!run.code, bold: style.bold || !!run.bold }),
        });
  });
  return runs;
}

/** Inline text of the report's own prose (no interpolation): `code` and **bold** mark style. */
export const prose = (text: string): Inline => inline(Object.assign([text], { raw: [text] }));

export const paragraph = (...lines: Inline[]): Paragraph => ({ kind: 'paragraph', lines });

/** A table; `align` gives each column's alignment (numbers right). */
export function table(
  header: readonly (string | Inline)[],
  align: readonly Align[],
  rows: readonly (readonly Cell[])[],
): Table {
  return { kind: 'table', header: header.map((h) => (typeof h === 'string' ? plain(h) : h)), align, rows };
}

/**
 * The parameters of a claim's run beside the seed's, as sub-items: one per
 * parameter that differs ("seed: 600 s; this run: 2 s", with the seed's
 * words), then one line naming those the run shares with the seed.
 */
function parameterItems(lines: readonly ParameterLine[]): Inline[] {
  const same = lines.filter((l) => l.same);
  return [
    ...lines
      .filter((l) => !l.same)
      .map((l) => inline`unlike the seed: ${l.label} — seed: ${l.seed}; this run: ${l.run} (${sourceText(l.source)})`),
    ...(same.length ? [plain(`as the seed: ${same.map((l) => `${l.label} ${l.seed}`).join('; ')}`)] : []),
  ];
}

/**
 * A claim as a list item: the answer (and size) in bold, the seed, the claim;
 * its evidence, then its parameters unlike the seed's, as sub-items.
 */
export function claimItem(a: ClaimAnswer): ListItem {
  return {
    text: inline`**${a.answer}**${a.size ? inline`; size: **${a.size}**` : ''} (seed ${a.seed}): ${a.claim}`,
    items: [...a.evidence.map((e) => plain(e)), ...parameterItems(a.parameters ?? [])],
  };
}
