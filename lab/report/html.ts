import { htmlText } from '../util/safe-text.js';
import { MATRIX_STYLE, claimsHtml, matrixHtml } from './glance-html.js';
import type { Block, Cell, Inline, ListItem, Report, Section } from './model.js';
import { renderSvg } from './plots.js';

/**
 * report.html from the report model: self-contained (inline SVG plots drawn
 * at report time, inline CSS, no scripts). The same sections, tables, lists
 * and claims as report.md, plus the figures. Every text goes through
 * lab/util/safe-text's htmlText: a guest's name is never markup, and its
 * control characters show as escapes.
 */

function inlineHtml(text: Inline): string {
  return text
    .map((run) => {
      const t = htmlText(run.text);
      const coded = run.code ? `<code>${t}</code>` : t;
      return run.bold ? `<strong>${coded}</strong>` : coded;
    })
    .join('');
}

/** A row's id attribute (what the matrix links to), or nothing. */
const rowId = (id: string | undefined) => (id ? ` id="${htmlText(id)}"` : '');

function tableHtml(block: Extract<Block, { kind: 'table' }>): string {
  const cell = (tag: 'th' | 'td', c: Cell, i: number) =>
    `<${tag}${block.align[i] === 'right' ? ' class="num"' : ''}>${c === null ? '' : inlineHtml(c)}</${tag}>`;
  const rows = [
    `<tr>${block.header.map((c, i) => cell('th', c, i)).join('')}</tr>`,
    ...block.rows.map((r, i) => `<tr${rowId(block.rowIds?.[i])}>${r.map((c, i) => cell('td', c, i)).join('')}</tr>`),
  ];
  return `<div class="table"><table>${rows.join('')}</table></div>`;
}

export function listHtml(items: readonly ListItem[], className?: string): string {
  const li = (i: ListItem) =>
    `<li>${inlineHtml(i.text)}${i.items.length ? `<ul>${i.items.map((t) => `<li>${inlineHtml(t)}</li>`).join('')}</ul>` : ''}</li>`;
  return `<ul${className ? ` class="${className}"` : ''}>${items.map(li).join('')}</ul>`;
}

async function blockHtml(block: Block): Promise<string> {
  switch (block.kind) {
    case 'paragraph':
      return `<p>${block.lines.map(inlineHtml).join(' ')}</p>`;
    case 'table':
      return tableHtml(block);
    case 'list':
      return listHtml(block.items);
    case 'claims':
      return claimsHtml(block.answers, inlineHtml);
    case 'matrix':
      return matrixHtml(block, inlineHtml);
    case 'figure':
      return block.spec
        ? `<figure><figcaption>${inlineHtml(block.caption)}</figcaption>${await renderSvg(block.spec)}</figure>`
        : `<p class="no-figure">${inlineHtml(block.caption)}</p>`;
  }
}

async function sectionHtml(section: Section): Promise<string> {
  const heading = `<h${section.level}>${inlineHtml(section.title)}</h${section.level}>`;
  const blocks: string[] = [];
  // One at a time: each plot renders a Vega view.
  for (const block of section.blocks) blocks.push(await blockHtml(block));
  return [heading, ...blocks].join('\n');
}

/** The page style every layerlab HTML page shares (report.html, the trend page). */
export const PAGE_STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#222}
h1{font-size:1.6rem}h2{margin-top:2.2rem;border-bottom:1px solid #ddd}h3{margin-top:1.6rem}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f6f6}td.num,th.num{text-align:right}.table{overflow-x:auto}code{background:#f3f3f3;padding:0 .2rem;border-radius:3px}
figure{margin:1rem 0}figcaption{color:#555;margin-bottom:.3rem}svg{max-width:100%;height:auto}.no-figure{color:#555}
`;

/** report.html: the report's sections in order, each scenario's plots under its heading. */
export async function renderHtml(report: Report): Promise<string> {
  const sections: string[] = [];
  for (const section of report.sections) sections.push(await sectionHtml(section));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${htmlText(report.title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${PAGE_STYLE}${MATRIX_STYLE}</style></head>
<body>
${sections.join('\n')}
</body></html>
`;
}
