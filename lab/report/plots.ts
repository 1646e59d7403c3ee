import type { TopLevelSpec } from 'vega-lite';
import type { ComparisonRow } from '../analyze/comparison-rows.js';
import { seriesOf } from '../analyze/comparison-rows.js';
import { NO_MOUNT } from '../catalog.js';
import type { Sample } from '../record/samples.js';
import type { MetricSpec } from '../scenarios/types.js';
import { visible } from '../util/safe-text.js';

/** Renders a Vega-Lite spec to SVG in Node (no browser, no canvas). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  // Loaded here, not at startup: every CLI command imports this module, few render (vega is ~2 s under tsx).
  const [vega, { compile }] = await Promise.all([import('vega'), import('vega-lite')]);
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

const font = { config: { font: 'system-ui, sans-serif', view: { stroke: '#ddd' } } };

/** Above this many repetitions per cell, dots become a box plot (a readable figure, a small file). */
export const MAX_DOTS_PER_CELL = 50;

/**
 * Every repetition as a dot per configuration (host × mount), with the
 * median as a tick: the spread is visible, not hidden behind one number.
 */
export function dotsSpec(samples: readonly Sample[], metric: MetricSpec, mounts: readonly string[]): TopLevelSpec {
  const values = samples
    .filter((s) => s.metric === metric.name)
    .map((s) => ({
      // Vega escapes markup in the SVG's text, not control characters: those are shown as escapes here.
      series: visible(seriesOf(s)),
      host: visible(`${s.host} (${s.profile})`),
      mount: s.mount,
      value: s.value,
      rep: s.rep,
    }));
  const perCell = new Map<string, number>();
  for (const v of values) {
    const cell = `${v.series}/${v.host}/${v.mount}`;
    perCell.set(cell, (perCell.get(cell) ?? 0) + 1);
  }
  // Scenarios that bring their own storage have the one mount "none": hosts go on the x axis.
  const cell = values.every((v) => v.mount === NO_MOUNT) ? hostCellEncoding(metric) : cellEncoding(metric, mounts);
  if (Math.max(0, ...perCell.values()) > MAX_DOTS_PER_CELL) {
    return facetByJob(values, { mark: { type: 'boxplot', extent: 1.5 }, encoding: cell });
  }
  return facetByJob(values, {
    layer: [
      {
        mark: { type: 'point', filled: true, opacity: 0.7, size: 40 },
        encoding: {
          ...cell,
          tooltip: [{ field: 'host' }, { field: 'mount' }, { field: 'rep' }, { field: 'value', format: '.4~s' }],
        },
      },
      {
        mark: { type: 'tick', thickness: 2, size: 14 },
        encoding: { ...cell, y: { ...cell.y, aggregate: 'median' } },
      },
    ],
  });
}

/** Position and colour of one configuration (host × mount) in a job's panel. */
function cellEncoding(metric: MetricSpec, mounts: readonly string[]) {
  return {
    x: { field: 'mount', type: 'nominal', title: null, sort: [...mounts] },
    xOffset: { field: 'host', type: 'nominal' },
    y: { field: 'value', type: 'quantitative', title: `${metric.name} (${metric.unit})`, scale: { zero: false } },
    color: { field: 'host', type: 'nominal', title: 'host', legend: { labelLimit: 320 } },
  } as const;
}

/** Position and colour of one host in a job's panel, for scenarios without mount kinds. */
function hostCellEncoding(metric: MetricSpec) {
  const { y, color } = cellEncoding(metric, []);
  return { x: { field: 'host', type: 'nominal', title: null }, y, color } as const;
}

/** One panel per series (fio job), in the order the parser wrote them. */
function facetByJob(values: { series: string }[], inner: Record<string, unknown>): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    ...font,
    data: { values },
    facet: {
      column: { field: 'series', type: 'nominal', title: null, sort: [...new Set(values.map((v) => v.series))] },
    },
    // Each job on its own scale: sequential MB/s would flatten random KB/s to a line.
    resolve: { scale: { y: 'independent' } },
    spec: { width: 170, height: 180, ...inner },
  } as TopLevelSpec;
}

/** Ratios A/B with their 95% intervals; the rule at 1 is "no difference". */
export function forestSpec(rows: readonly ComparisonRow[]): TopLevelSpec {
  const values = rows
    .filter((r) => r.result.ratio !== undefined && (r.result.lo ?? 0) > 0 && Number.isFinite(r.result.hi))
    .map((r) => ({
      label: visible(
        `${r.series} ${r.metric.name}: ${r.a} / ${r.b}${r.axis === 'profile' ? ` (${r.within})` : ` on ${r.within}`}`,
      ),
      ratio: r.result.ratio,
      lo: r.result.lo,
      hi: r.result.hi,
      verdict: r.result.verdict === 'no-difference' ? 'no consistent difference' : 'difference',
    }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    ...font,
    data: { values },
    width: 360,
    height: { step: 16 },
    layer: [
      { mark: { type: 'rule', strokeDash: [4, 3], color: '#888' }, encoding: { x: { datum: 1 } } },
      {
        mark: { type: 'rule', strokeWidth: 2 },
        encoding: {
          y: { field: 'label', type: 'nominal', title: null, sort: null, axis: { labelLimit: 420 } },
          x: {
            field: 'lo',
            type: 'quantitative',
            scale: { type: 'log' },
            title: 'typical ratio A/B (95% CI, log scale)',
          },
          x2: { field: 'hi' },
          color: {
            field: 'verdict',
            type: 'nominal',
            title: null,
            scale: { domain: ['difference', 'no consistent difference'], range: ['#d62728', '#7f7f7f'] },
          },
        },
      },
      {
        mark: { type: 'point', filled: true, size: 36 },
        encoding: {
          y: { field: 'label', type: 'nominal', sort: null },
          x: { field: 'ratio', type: 'quantitative' },
          color: { field: 'verdict', type: 'nominal' },
          tooltip: [
            { field: 'label' },
            { field: 'ratio', format: '.3f' },
            { field: 'lo', format: '.3f' },
            { field: 'hi', format: '.3f' },
          ],
        },
      },
    ],
  };
}
