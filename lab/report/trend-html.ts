import { basename } from 'node:path';
import { htmlText } from '../util/safe-text.js';
import { fmt } from './format.js';
import { PAGE_STYLE } from './html.js';
import { type TrendLab, type TrendModel, type TrendPanel, type TrendPoint, changesAt } from './trend-model.js';

/**
 * The trend page (`layerlab history plot`): self-contained HTML, one inline
 * SVG small multiple per cell, drawn here without a plotting library (each
 * mark has a class a reader's tools and the browser test can find), no
 * scripts. Per panel: the median night by night as a line, its interval as a
 * band (and a whisker per night), a flagged night as a downward triangle on
 * a tinted strip, an accepted night as a dashed line, and a night whose
 * recorded environment changed as a dotted line with a number, the change
 * itself listed under the panel. Every text through htmlText: lab, host,
 * series and environment values come from guests.
 */

const W = 340;
const H = 190;
const M = { left: 58, right: 34, top: 18, bottom: 30 };
const PLOT_W = W - M.left - M.right;
const PLOT_H = H - M.top - M.bottom;

const t = htmlText;
const num = (x: number) => Number(x.toFixed(1));

/** The y range: every interval, padded; a flat series gets a little room. */
function yDomain(points: readonly TrendPoint[]): [number, number] {
  const ends = points.flatMap((p) => [p.lo, p.hi, p.median]).filter(Number.isFinite);
  let [lo, hi] = [Math.min(...ends), Math.max(...ends)];
  if (!(hi > lo)) [lo, hi] = [lo - Math.abs(lo) * 0.05 - 1e-9, hi + Math.abs(hi) * 0.05 + 1e-9];
  const pad = (hi - lo) * 0.08;
  return [lo - pad, hi + pad];
}

/** Runs of consecutive nights: a line or band does not bridge a night the cell has no values. */
function segments(points: readonly TrendPoint[]): TrendPoint[][] {
  const out: TrendPoint[][] = [];
  for (const p of points) {
    const last = out.at(-1);
    if (last && (last.at(-1) as TrendPoint).night === p.night - 1) last.push(p);
    else out.push([p]);
  }
  return out;
}

/** A short x label: "12-01 02:01" of a start time, the date and time of a run id. */
function shortLabel(label: string): string {
  const time = /^\d{4}-(\d\d-\d\d) (\d\d:\d\d)Z$/.exec(label);
  if (time) return `${time[1]} ${time[2]}`;
  const id = /^\d{4}(\d\d)(\d\d)-(\d\d)(\d\d)/.exec(label);
  return id ? `${id[1]}-${id[2]} ${id[3]}:${id[4]}` : label.slice(0, 11);
}

const REGRESSED_TIP = {
  true: '; this cell regressed (flagged by the night’s comparison)',
  null: '; the night was flagged; which cells, the history does not say (judged before history version 4)',
} as const;

function panelSvg(lab: TrendLab, panel: TrendPanel): string {
  const nights = lab.nights.length;
  const x = (night: number) => num(M.left + (nights === 1 ? PLOT_W / 2 : (night * PLOT_W) / (nights - 1)));
  const [y0, y1] = yDomain(panel.points);
  const y = (v: number) => num(M.top + PLOT_H - ((v - y0) / (y1 - y0)) * PLOT_H);
  const parts: string[] = [];
  const label = `${panel.cell}: ${panel.metric} (${panel.unit}) over ${nights} night(s)`;

  // Night strips and lines first, marks on top.
  lab.nights.forEach((night, i) => {
    const what = `${night.run} (${night.label})`;
    if (night.flagged) {
      const half = nights === 1 ? 12 : Math.min(12, PLOT_W / (nights - 1) / 2);
      parts.push(
        `<rect class="flagged-night" x="${num(x(i) - half)}" y="${M.top}" width="${num(2 * half)}" height="${PLOT_H}"><title>${t(`${what}: its nightly comparison flagged a regression (in this cell or another)`)}</title></rect>`,
      );
    }
    if (night.acceptedAt !== null) {
      parts.push(
        `<line class="accepted" x1="${x(i)}" x2="${x(i)}" y1="${M.top}" y2="${M.top + PLOT_H}"><title>${t(`${what}: accepted as the baseline ${night.acceptedAt}`)}</title></line>`,
        `<text class="accepted-label" x="${x(i) - 3}" y="${M.top + PLOT_H - 4}">accepted</text>`,
      );
    }
  });
  const annotated = lab.nights.map((_, i) => changesAt(lab, panel, i)).map((c, i) => ({ night: i, changes: c }));
  let mark = 0;
  for (const a of annotated) {
    if (!a.changes.length) continue;
    mark++;
    parts.push(
      `<g class="env-change"><line x1="${x(a.night)}" x2="${x(a.night)}" y1="${M.top - 2}" y2="${M.top + PLOT_H}"/><circle cx="${x(a.night)}" cy="${M.top - 9}" r="7"/><text x="${x(a.night)}" y="${M.top - 5.5}">${mark}</text><title>${t(a.changes.join('\n'))}</title></g>`,
    );
  }

  for (const seg of segments(panel.points)) {
    if (seg.length > 1) {
      const top = seg.map((p) => `${x(p.night)},${y(p.hi)}`);
      const bottom = seg.map((p) => `${x(p.night)},${y(p.lo)}`).reverse();
      parts.push(`<polygon class="band" points="${[...top, ...bottom].join(' ')}"/>`);
      parts.push(`<polyline class="median" points="${seg.map((p) => `${x(p.night)},${y(p.median)}`).join(' ')}"/>`);
    }
  }
  for (const p of panel.points) {
    const night = lab.nights[p.night];
    const tip = t(
      `${night?.run} (${night?.label}): median ${fmt(p.median)} ${panel.unit}, interval ${fmt(p.lo)}–${fmt(p.hi)} (${(p.level * 100).toFixed(1)}%), n ${p.n}${REGRESSED_TIP[String(p.regressed) as keyof typeof REGRESSED_TIP] ?? ''}`,
    );
    parts.push(`<line class="whisker" x1="${x(p.night)}" x2="${x(p.night)}" y1="${y(p.lo)}" y2="${y(p.hi)}"/>`);
    const [cx, cy] = [x(p.night), y(p.median)];
    parts.push(
      night?.flagged && p.regressed !== false
        ? `<path class="${p.regressed ? 'regression' : 'regression unknown'}" d="M${num(cx - 6)},${num(cy - 5)}H${num(cx + 6)}L${cx},${num(cy + 6)}Z"><title>${tip}</title></path>`
        : `<circle class="night${night?.complete === false ? ' incomplete' : ''}" cx="${cx}" cy="${cy}" r="3.2"><title>${tip}</title></circle>`,
    );
  }

  // Axes: three values up the side, a few nights along the bottom.
  const axis = [
    `<line class="axis" x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${M.top + PLOT_H}"/>`,
    `<line class="axis" x1="${M.left}" x2="${M.left + PLOT_W}" y1="${M.top + PLOT_H}" y2="${M.top + PLOT_H}"/>`,
  ];
  for (const v of [y0 + (y1 - y0) * 0.08, (y0 + y1) / 2, y1 - (y1 - y0) * 0.08]) {
    axis.push(
      `<line class="grid" x1="${M.left}" x2="${M.left + PLOT_W}" y1="${y(v)}" y2="${y(v)}"/><text class="tick y" x="${M.left - 4}" y="${y(v) + 3.5}">${t(fmt(v))}</text>`,
    );
  }
  const every = Math.max(1, Math.ceil(nights / 4));
  lab.nights.forEach((night, i) => {
    if (i % every !== 0 && i !== nights - 1) return;
    if (i !== nights - 1 && nights - 1 - i < every / 2) return;
    axis.push(`<text class="tick x" x="${x(i)}" y="${H - 14}">${t(shortLabel(night.label))}</text>`);
  });
  return `<svg class="trend" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${t(label)}">${axis.join('')}${parts.join('')}</svg>`;
}

function panelHtml(lab: TrendLab, panel: TrendPanel): string {
  const heading = `${panel.host} (${panel.profile}) · ${panel.mount} · ${panel.series || panel.scenario}`;
  const notes: string[] = [];
  let mark = 0;
  lab.nights.forEach((night, i) => {
    const changes = changesAt(lab, panel, i);
    if (!changes.length) return;
    mark++;
    notes.push(`<li value="${mark}"><span class="when">${t(night.label)}</span>: ${changes.map(t).join('; ')}</li>`);
  });
  return `<figure class="trend-panel" data-cell="${t(panel.cell)}"><figcaption><strong>${t(heading)}</strong><br>${t(`${panel.scenario} ${panel.metric} (${panel.unit}), ${panel.better} is better`)}</figcaption>${panelSvg(lab, panel)}${notes.length ? `<ol class="env-changes">${notes.join('')}</ol>` : ''}</figure>`;
}

/** Every night of a lab in a table: its verdict, acceptance and what changed. */
function nightsTable(lab: TrendLab): string {
  const hostChanges = (i: number) => [
    ...new Set(lab.panels.flatMap((p) => p.envChanges.filter((c) => c.night === i).flatMap((c) => c.changes))),
  ];
  const rows = lab.nights.map((n, i) => {
    const verdict = n.flagged ? '<strong>flagged: regression</strong>' : 'not flagged';
    const changes = [...n.changes, ...hostChanges(i)];
    return `<tr${n.flagged ? ' class="flagged-row"' : ''}><td>${t(n.label)}</td><td><code>${t(n.run)}</code></td><td>${verdict}${n.complete ? '' : ' (incomplete: failed or interrupted trials)'}</td><td>${n.acceptedAt === null ? '' : t(`accepted ${n.acceptedAt}`)}</td><td>${changes.map(t).join('<br>')}</td></tr>`;
  });
  return `<details class="nights"><summary>${t(`the ${lab.nights.length} night(s), one row each`)}</summary><div class="table"><table><tr><th>night</th><th>run</th><th>nightly comparison</th><th>accepted</th><th>what changed since the night before</th></tr>${rows.join('')}</table></div></details>`;
}

function labHtml(lab: TrendLab): string {
  const flagged = lab.nights.filter((n) => n.flagged).length;
  const changed = lab.nights.filter((_, i) => lab.panels.some((p) => changesAt(lab, p, i).length)).length;
  const summary = `${lab.panels.length} cell(s) over ${lab.nights.length} night(s), ${lab.nights[0]?.label} to ${lab.nights.at(-1)?.label}: ${flagged} night(s) flagged as a regression, ${lab.nights.filter((n) => n.acceptedAt !== null).length} accepted as the baseline, ${changed} with a change of environment or setup.`;
  return `<section class="trend-lab"><h2>${t(`lab ${lab.lab}`)}</h2><p>${t(summary)}</p>${nightsTable(lab)}<div class="panels">${lab.panels.map((p) => panelHtml(lab, p)).join('\n')}</div></section>`;
}

const TREND_STYLE = `
.panels{display:grid;grid-template-columns:repeat(auto-fill,minmax(350px,1fr));gap:.8rem;margin-top:.8rem}
figure.trend-panel{margin:0;border:1px solid #ddd;border-radius:4px;padding:.35rem .45rem}
figure.trend-panel figcaption{font-size:12px;color:#333;margin:0}
svg.trend{display:block;font:10px system-ui,sans-serif}
svg.trend .axis{stroke:#888}svg.trend .grid{stroke:#eee}
svg.trend .tick.y{text-anchor:end;fill:#555}svg.trend .tick.x{text-anchor:middle;fill:#555}
svg.trend .band{fill:#9ecae1;fill-opacity:.45;stroke:none}svg.trend .whisker{stroke:#6baed6;stroke-width:1}
svg.trend .median{fill:none;stroke:#08519c;stroke-width:1.6}
svg.trend .night{fill:#08519c}svg.trend .night.incomplete{fill:#fff;stroke:#08519c;stroke-width:1.2}
svg.trend .regression{fill:#d62728;stroke:#000;stroke-width:.8}svg.trend .regression.unknown{fill:#fff;stroke:#d62728;stroke-width:1.4}
svg.trend .flagged-night{fill:#d62728;fill-opacity:.12}
svg.trend .accepted{stroke:#238b45;stroke-width:1.4;stroke-dasharray:5 3}svg.trend .accepted-label{fill:#238b45;font-size:9px;text-anchor:end}
svg.trend .env-change line{stroke:#444;stroke-dasharray:1.5 2.5}
svg.trend .env-change circle{fill:#fff;stroke:#444}svg.trend .env-change text{text-anchor:middle;font-size:9px;fill:#222}
ol.env-changes{font-size:11px;margin:.2rem 0 0;padding-left:1.4rem;color:#333;word-break:break-word}
.trend-legend{font-size:12px;color:#444}.trend-legend svg{vertical-align:middle}
tr.flagged-row td{background:#fde0dd}details.nights summary{cursor:pointer;color:#444}
`;

/** The legend: each mark drawn as it is in the panels, and its meaning in words. */
const LEGEND = [
  [
    '<svg width="26" height="14"><rect x="0" y="3" width="26" height="8" fill="#9ecae1" fill-opacity=".45"/><line x1="0" x2="26" y1="7" y2="7" stroke="#08519c" stroke-width="1.6"/><circle cx="13" cy="7" r="3.2" fill="#08519c"/></svg>',
    "median of the night's repetitions, its interval as the band (order statistics; ≥ 95% where n allows: hover a night for its coverage)",
  ],
  [
    '<svg width="16" height="14"><path d="M2,2H14L8,13Z" fill="#d62728" stroke="#000" stroke-width=".8"/></svg>',
    'this cell regressed that night: its nightly comparison flagged it (a night that flagged other cells only is tinted)',
  ],
  [
    '<svg width="16" height="14"><path d="M2,2H14L8,13Z" fill="#fff" stroke="#d62728" stroke-width="1.4"/></svg>',
    'a flagged night judged before history version 4: which cells regressed, the history does not say',
  ],
  [
    '<svg width="16" height="14"><rect x="2" y="0" width="12" height="14" fill="#d62728" fill-opacity=".12"/></svg>',
    'a night whose comparison flagged a regression (layerlab compare --baseline last <run> lists its cells)',
  ],
  [
    '<svg width="16" height="14"><line x1="8" x2="8" y1="0" y2="14" stroke="#238b45" stroke-width="1.4" stroke-dasharray="5 3"/></svg>',
    'accepted as the baseline (layerlab history accept)',
  ],
  [
    '<svg width="18" height="16"><circle cx="9" cy="8" r="7" fill="#fff" stroke="#444"/><text x="9" y="11.5" font-size="9" text-anchor="middle">1</text></svg>',
    'the environment or setup changed since the night before (kernel, Docker, image, ...): what changed is listed under the panel',
  ],
  [
    '<svg width="12" height="14"><circle cx="6" cy="7" r="3.2" fill="#fff" stroke="#08519c" stroke-width="1.2"/></svg>',
    'an incomplete night (failed or interrupted trials)',
  ],
] as const;

/** The trend page: per lab, a summary, its nights and one panel per cell. */
export function renderTrendHtml(model: TrendModel): string {
  const title =
    model.labs.length === 1
      ? `layerlab trends: lab ${model.labs[0]?.lab}`
      : `layerlab trends: ${model.labs.length} labs`;
  const legend = LEGEND.map(([svg, text]) => `<span>${svg} ${t(text)}</span>`).join('<br>');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${t(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${PAGE_STYLE}${TREND_STYLE}</style></head>
<body>
<h1>${t(title)}</h1>
<p>${t(`Each cell over the nights recorded in ${basename(model.source)}: one panel per scenario, host, mount kind, series and headline metric.`)}</p>
<p class="trend-legend">${legend}</p>
${model.labs.map(labHtml).join('\n')}
</body></html>
`;
}
