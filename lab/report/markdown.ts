import { markdownCode, markdownLineStart, markdownText } from '../util/safe-text.js';
import { matrixTable } from './glance.js';
import { type Block, type Cell, type Inline, type ListItem, type Report, type Section, claimItem } from './model.js';

/**
 * report.md from the report model: GitHub-flavoured Markdown that fits a CI
 * job summary. Blocks are separated by a blank line; figures are HTML-only.
 */

/**
 * Inline runs as Markdown. A plain run is text, never markup (it can hold a
 * guest's fio job name or stderr): lab/util/safe-text escapes it for Markdown,
 * and in a table cell a '|' in a code span too.
 */
function inlineMd(text: Inline, inCell = false): string {
  return text
    .map((run) => {
      const coded = run.code ? markdownCode(run.text, inCell) : markdownText(run.text);
      return run.bold ? `**${coded}**` : coded;
    })
    .join('');
}

/** Inline runs that begin a line (a paragraph line, a list item, a heading): no heading, quote or list from the text. */
const lineMd = (text: Inline) => markdownLineStart(inlineMd(text));

/** A row: "| a | b |"; a cell with no content at all is a single space ("| |"). */
const row = (cells: readonly Cell[]) =>
  `|${cells.map((c) => (c === null ? ' ' : ` ${inlineMd(c, true)} `)).join('|')}|`;

function listMd(items: readonly ListItem[]): string {
  return items.flatMap((i) => [`- ${lineMd(i.text)}`, ...i.items.map((sub) => `  - ${lineMd(sub)}`)]).join('\n');
}

/** A block's Markdown, or undefined for what report.md does not show (figures). */
function blockMd(block: Block): string | undefined {
  switch (block.kind) {
    case 'paragraph':
      return block.lines.map(lineMd).join('\n');
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
  const heading = `${'#'.repeat(section.level)} ${lineMd(section.title)}`;
  return [heading, ...section.blocks.map(blockMd).filter((b) => b !== undefined)];
}

/** report.md: every section's heading and blocks, a blank line between any two. */
export function renderMarkdown(report: Report): string {
  return `${report.sections.flatMap(sectionMd).join('\n\n')}\n`;
}
