import { matrixTable } from './glance.js';
import { type Block, type Cell, type Inline, type ListItem, type Report, type Section, claimItem } from './model.js';

/**
 * report.md from the report model: GitHub-flavoured Markdown that fits a CI
 * job summary. Blocks are separated by a blank line; figures are HTML-only.
 */

/** Text in a Markdown table cell: a '|' would end the cell, a line break the row. */
const escapeCell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** Inline runs as Markdown; in a table cell, a '|' or a line break in the text would break the row. */
function inlineMd(text: Inline, inCell = false): string {
  return text
    .map((run) => {
      const t = inCell ? escapeCell(run.text) : run.text;
      const coded = run.code ? `\`${t}\`` : t;
      return run.bold ? `**${coded}**` : coded;
    })
    .join('');
}

/** A row: "| a | b |"; a cell with no content at all is a single space ("| |"). */
const row = (cells: readonly Cell[]) =>
  `|${cells.map((c) => (c === null ? ' ' : ` ${inlineMd(c, true)} `)).join('|')}|`;

function listMd(items: readonly ListItem[]): string {
  return items.flatMap((i) => [`- ${inlineMd(i.text)}`, ...i.items.map((sub) => `  - ${inlineMd(sub)}`)]).join('\n');
}

/** A block's Markdown, or undefined for what report.md does not show (figures). */
function blockMd(block: Block): string | undefined {
  switch (block.kind) {
    case 'paragraph':
      return block.lines.map((line) => inlineMd(line)).join('\n');
    case 'table':
      return [
        row(block.header),
        `|${block.align.map((a) => (a === 'right' ? '---:' : '---')).join('|')}|`,
        ...block.rows.map(row),
      ].join('\n');
    case 'list':
      return listMd(block.items);
    case 'claims':
      return listMd(block.answers.map(claimItem));
    case 'matrix':
      return blockMd(matrixTable(block));
    case 'figure':
      return undefined;
  }
}

function sectionMd(section: Section): string[] {
  const heading = `${'#'.repeat(section.level)} ${inlineMd(section.title)}`;
  return [heading, ...section.blocks.map(blockMd).filter((b) => b !== undefined)];
}

/** report.md: every section's heading and blocks, a blank line between any two. */
export function renderMarkdown(report: Report): string {
  return `${report.sections.flatMap(sectionMd).join('\n\n')}\n`;
}
