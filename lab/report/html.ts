import type { ScenarioAnalysis } from '../analyze/analysis.js';
import { type LoadedRun, recordedLab } from '../record/load.js';
import { SCENARIOS } from '../scenarios/index.js';
import { MAX_DOTS_PER_CELL, dotsSpec, forestSpec, renderSvg } from './plots.js';

const escapeHtml = (s: string) =>
  s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

function inline(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
}

function tableRow(line: string, cell: 'td' | 'th'): string {
  const cells = line
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replaceAll('\\|', '|'));
  return `<tr>${cells.map((c) => `<${cell}>${inline(c)}</${cell}>`).join('')}</tr>`;
}

/**
 * The subset of Markdown report.md uses (headings, tables, paragraphs, code
 * spans, bold), so report.html shows exactly the same tables as report.md.
 */
/** "- item" or "  - sub-item": the report's lists (seed claims and their evidence) are two levels deep. */
const LIST_ITEM = /^( {2})?- /;

function listHtml(items: readonly string[]): string {
  // Each top-level item with the sub-items that follow it.
  const groups: { text: string; subs: string[] }[] = [];
  for (const item of items) {
    const text = inline(item.replace(LIST_ITEM, ''));
    const last = groups.at(-1);
    if (item.startsWith('  ') && last) last.subs.push(text);
    else groups.push({ text, subs: [] });
  }
  const li = (g: (typeof groups)[number]) =>
    `<li>${g.text}${g.subs.length ? `<ul>${g.subs.map((t) => `<li>${t}</li>`).join('')}</ul>` : ''}</li>`;
  return `<ul>${groups.map(li).join('')}</ul>`;
}

export function markdownToHtml(md: string): string {
  const out: string[] = [];
  const lines = md.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const heading = /^(#{1,3}) (.*)$/.exec(line);
    if (heading) {
      const level = (heading[1] as string).length;
      out.push(`<h${level}>${inline(heading[2] as string)}</h${level}>`);
    } else if (line.startsWith('|')) {
      const rows = [tableRow(line, 'th')];
      i++; // separator row
      while (lines[i + 1]?.startsWith('|')) rows.push(tableRow(lines[++i] as string, 'td'));
      out.push(`<div class="table"><table>${rows.join('')}</table></div>`);
    } else if (LIST_ITEM.test(line)) {
      const items = [line];
      while (LIST_ITEM.test(lines[i + 1] ?? '')) items.push(lines[++i] as string);
      out.push(listHtml(items));
    } else if (line.trim()) {
      const para = [line];
      while (lines[i + 1]?.trim() && !/^(#|\|)/.test(lines[i + 1] as string) && !LIST_ITEM.test(lines[i + 1] as string))
        para.push(lines[++i] as string);
      out.push(`<p>${inline(para.join(' '))}</p>`);
    }
  }
  return out.join('\n');
}

async function scenarioPlots(
  { name, samples, comparisons }: ScenarioAnalysis,
  mounts: readonly string[],
): Promise<string> {
  const scenario = SCENARIOS[name];
  const metrics = scenario.metrics.filter((m) => m.compare);
  // Outcomes (permissions, lifetime) are tables, not plots.
  if (!metrics.length) return '';
  const parts = [`<h2>Plots — ${escapeHtml(scenario.summary)}</h2>`];
  for (const metric of metrics) {
    parts.push(
      `<figure><figcaption>${escapeHtml(metric.description)} — every repetition a dot (a box plot above ${MAX_DOTS_PER_CELL} per cell), the tick is the median (${metric.better} is better)</figcaption>${await renderSvg(dotsSpec(samples, metric, mounts))}</figure>`,
    );
  }
  const rows = comparisons.filter((r) => r.result.ratio !== undefined && r.result.verdict !== 'not-enough-runs');
  if (rows.length) {
    parts.push(
      `<figure><figcaption>Typical ratios (Hodges–Lehmann) with 95% distribution-free intervals; red: a difference the report claims</figcaption>${await renderSvg(forestSpec(rows))}</figure>`,
    );
  } else {
    parts.push('<p>No forest plot: no comparison has enough runs (3 per side).</p>');
  }
  return parts.join('\n');
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#222}
h1{font-size:1.6rem}h2{margin-top:2.2rem;border-bottom:1px solid #ddd}h3{margin-top:1.6rem}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f6f6}.table{overflow-x:auto}code{background:#f3f3f3;padding:0 .2rem;border-radius:3px}
figure{margin:1rem 0}figcaption{color:#555;margin-bottom:.3rem}svg{max-width:100%;height:auto}
`;

/** report.html: self-contained (inline SVG plots, inline CSS, no scripts). */
export async function renderHtml(
  run: LoadedRun,
  analysis: readonly ScenarioAnalysis[],
  markdown: string,
): Promise<string> {
  const plots: string[] = [];
  const { mounts, name } = recordedLab(run);
  for (const scenario of analysis) plots.push(await scenarioPlots(scenario, mounts));
  // The report's heading and summary first, then the plots, then the tables.
  const split = markdown.indexOf('\n## ');
  const intro = split < 0 ? markdown : markdown.slice(0, split);
  const tables = split < 0 ? '' : markdown.slice(split + 1);
  const title = `layerlab report: ${escapeHtml(name)}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}</style></head>
<body>
<section id="summary">${markdownToHtml(intro)}</section>
<section id="plots">${plots.join('\n')}</section>
<section id="tables">${markdownToHtml(tables)}</section>
</body></html>
`;
}
