import { fmt } from './format.js';
import { MATRIX_VERDICTS, MATRIX_VERDICT_ORDER, setupText } from './glance.js';
import {
  type ClaimAnswer,
  type Inline,
  type Matrix,
  type MatrixCell,
  type MatrixColumn,
  type MatrixVerdict,
  claimItem,
  plain,
} from './model.js';

/**
 * The matrix in report.html: a table styled as a heat map, each cell a link
 * to its comparison's row. Every piece of text goes through the renderer's
 * own inline escaping (passed in: html.ts imports this module).
 */

type InlineHtml = (text: Inline) => string;

/**
 * How each verdict looks. The colour is one cue of several: a fill pattern,
 * the weight and style of the text and the border tell the verdicts apart
 * in grey-scale too (and the sign and word in every cell say it outright).
 */
export const MATRIX_LOOK: Readonly<
  Record<
    MatrixVerdict,
    {
      colour: string;
      pattern: 'none' | 'stripes' | 'dots';
      weight: 400 | 700;
      border: 'solid' | 'dashed' | 'dotted' | 'double';
      italic: boolean;
    }
  >
> = {
  better: { colour: '#a6dba0', pattern: 'none', weight: 700, border: 'solid', italic: false },
  worse: { colour: '#f4a582', pattern: 'stripes', weight: 700, border: 'solid', italic: false },
  equivalent: { colour: '#c6dbef', pattern: 'none', weight: 400, border: 'solid', italic: false },
  'no-difference': { colour: '#f0f0f0', pattern: 'none', weight: 400, border: 'dotted', italic: false },
  'too-few-runs': { colour: '#ffffff', pattern: 'none', weight: 400, border: 'dashed', italic: true },
  'no-ratio': { colour: '#e0e0e0', pattern: 'dots', weight: 400, border: 'solid', italic: true },
  baseline: { colour: '#ffffff', pattern: 'none', weight: 400, border: 'double', italic: false },
  'no-data': { colour: '#e0e0e0', pattern: 'none', weight: 400, border: 'solid', italic: true },
};

const PATTERNS = {
  none: 'none',
  stripes: 'repeating-linear-gradient(135deg,rgba(0,0,0,.16) 0 2px,transparent 2px 7px)',
  dots: 'radial-gradient(rgba(0,0,0,.2) 1px,transparent 1.5px) 0 0/6px 6px',
};

/** The matrix's CSS, one rule per verdict from MATRIX_LOOK. */
export const MATRIX_STYLE = [
  '.matrix{border-collapse:separate;border-spacing:3px;margin:.4rem 0;font-size:13px}',
  '.matrix th{background:none;border:0;padding:.1rem .3rem;text-align:center;font-weight:600}',
  '.matrix th.setup{text-align:left;white-space:nowrap}.matrix thead th{border-bottom:1px solid #ccc}',
  '.matrix td{padding:0;min-width:6.5rem;text-align:center;vertical-align:middle;border-width:2px}',
  '.matrix td a{display:block;padding:.2rem .35rem;color:#111;text-decoration:none}',
  '.matrix td a:hover{outline:2px solid #333}.mx-r{display:block;font-size:15px}',
  '.mx-ci{display:block;font-size:11px;color:#333}.mx-v{display:block;font-size:12px}',
  '.legend{font-size:12px;color:#444;margin:.2rem 0 .6rem}.legend span{display:inline-block;padding:0 .3rem;margin:0 .15rem;border-width:2px}',
  'tr:target{outline:2px solid #333;background:#fffbd6}.claims summary{cursor:pointer;color:#444}',
  ...MATRIX_VERDICT_ORDER.map((v) => {
    const look = MATRIX_LOOK[v];
    return `.mx-${v}{background:${PATTERNS[look.pattern] === 'none' ? '' : `${PATTERNS[look.pattern]},`}${look.colour};border-style:${look.border};border-color:#555;font-weight:${look.weight};font-style:${look.italic ? 'italic' : 'normal'}}`;
  }),
].join('\n');

/** Header rows: columns grouped by scenario and metric, then series, then mount kind; a level with nothing to say is left out. */
function headerRows(columns: readonly MatrixColumn[], inlineHtml: InlineHtml): string[] {
  const levels: ((c: MatrixColumn) => string)[] = [
    (c) => `${c.scenario} · ${c.metric.name} (${c.metric.unit}, ${c.metric.better} is better)`,
    (c) => c.series,
    (c) => (c.mount === 'none' ? '' : c.mount),
  ];
  const shown = levels.filter((label) => columns.some((c) => label(c) !== ''));
  return shown.map((label, depth) => {
    const spans: { text: string; span: number }[] = [];
    columns.forEach((c, i) => {
      // A group ends where any level above it (or its own label) changes.
      const key = shown.slice(0, depth + 1).map((l) => l(c));
      const previous = i > 0 ? shown.slice(0, depth + 1).map((l) => l(columns[i - 1] as MatrixColumn)) : undefined;
      const last = spans.at(-1);
      if (last && previous && key.join('\0') === previous.join('\0')) last.span++;
      else spans.push({ text: label(c), span: 1 });
    });
    const corner = depth === 0 ? `<th class="setup" rowspan="${shown.length}">setup</th>` : '';
    return `<tr>${corner}${spans.map((s) => `<th${s.span > 1 ? ` colspan="${s.span}"` : ''}>${inlineHtml(plain(s.text))}</th>`).join('')}</tr>`;
  });
}

function cellHtml(cell: MatrixCell, column: MatrixColumn, inlineHtml: InlineHtml): string {
  const { sign, word, meaning } = MATRIX_VERDICTS[cell.verdict];
  const num = (x: number | undefined) => (x === undefined ? '?' : Number.isFinite(x) ? x.toFixed(2) : '∞');
  const [big, small] =
    cell.verdict === 'baseline'
      ? [fmt(cell.median as number), `${column.metric.unit} · n ${cell.n}`]
      : cell.ratio !== undefined
        ? [`${num(cell.ratio)}×`, `${num(cell.lo)}–${num(cell.hi)}`]
        : ['–', `n ${cell.n}`];
  const body = `<span class="mx-r">${inlineHtml(plain(big))}</span><span class="mx-ci">${inlineHtml(plain(small))}</span><span class="mx-v">${inlineHtml(plain(`${sign} ${word}`))}</span>`;
  const title = inlineHtml(plain(meaning));
  const href = cell.detail ? ` href="#${inlineHtml(plain(cell.detail))}"` : '';
  return `<td class="mx mx-${cell.verdict}"><a${href} title="${title}">${body}</a></td>`;
}

/** The matrix as an HTML table: setups down, workloads across, then the legend of every verdict's look. */
export function matrixHtml(matrix: Matrix, inlineHtml: InlineHtml): string {
  const body = matrix.rows.map(
    (row) =>
      `<tr><th class="setup">${inlineHtml(plain(setupText(row)))}</th>${row.cells.map((c, i) => cellHtml(c, matrix.columns[i] as MatrixColumn, inlineHtml)).join('')}</tr>`,
  );
  const legend = MATRIX_VERDICT_ORDER.map(
    (v) => `<span class="mx-${v}">${inlineHtml(plain(`${MATRIX_VERDICTS[v].sign} ${MATRIX_VERDICTS[v].word}`))}</span>`,
  );
  return `<div class="table"><table class="matrix"><thead>${headerRows(matrix.columns, inlineHtml).join('')}</thead><tbody>${body.join('')}</tbody></table></div>
<p class="legend">${legend.join('')}</p>`;
}

/**
 * The seed claims in report.html: each answer with its evidence, the
 * parameters unlike the seed's folded under a summary that counts them (the
 * claims share the first screen with the matrix; report.md lists them all).
 */
export function claimsHtml(answers: readonly ClaimAnswer[], inlineHtml: InlineHtml): string {
  const li = (a: ClaimAnswer) => {
    const item = claimItem(a);
    const evidence = item.items.slice(0, a.evidence.length);
    const parameters = item.items.slice(a.evidence.length);
    const unlike = (a.parameters ?? []).filter((p) => !p.same).length;
    const summary = `the seed's parameters: ${unlike} unlike this run's, ${(a.parameters ?? []).length - unlike} the same`;
    const items = [
      ...evidence.map((e) => `<li>${inlineHtml(e)}</li>`),
      ...(parameters.length
        ? [
            `<li><details><summary>${inlineHtml(plain(summary))}</summary><ul>${parameters.map((p) => `<li>${inlineHtml(p)}</li>`).join('')}</ul></details></li>`,
          ]
        : []),
    ];
    return `<li>${inlineHtml(item.text)}${items.length ? `<ul>${items.join('')}</ul>` : ''}</li>`;
  };
  return `<ul class="claims">${answers.map(li).join('')}</ul>`;
}
