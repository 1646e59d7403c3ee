import type { TopLevelSpec } from 'vega-lite';
import { type ScenarioTime, TIME_PARTS } from '../analyze/trial-time.js';
import { visible } from '../util/safe-text.js';
import { fmt } from './format.js';
import { type Block, type Section, paragraph, plain, prose, table } from './model.js';

/**
 * The run's "where the trial time went": per scenario, a stacked bar of the
 * parts of its trials' wall time (report.html) and the same figures as a
 * table (both reports). Greys, darkest for the timed work, each segment
 * outlined: readable in grey-scale and in print; the table says it in words.
 */

/** One grey per part, dark to light in TIME_PARTS' order. */
const GREYS = ['#1f1f1f', '#4a4a4a', '#737373', '#9c9c9c', '#bdbdbd', '#dadada', '#f4f4f4'];

/** "12.3 s (45%)": a part's seconds per trial and its share of the wall. */
function partCell(seconds: number, row: ScenarioTime): string {
  const share = row.wallSeconds > 0 ? ` (${((seconds / row.wallSeconds) * 100).toFixed(0)}%)` : '';
  return `${fmt(seconds / row.trials)} s${share}`;
}

/** "2.6×", or '–' when nothing was timed. */
const ratioText = (row: ScenarioTime) => (row.ratio === undefined ? '–' : `${fmt(row.ratio)}×`);

/** The stacked bars: one per scenario, the share of its wall time per part. */
export function trialTimeSpec(rows: readonly ScenarioTime[]): TopLevelSpec {
  // A scenario's name comes from the run's plan (any text in an old or hand-made run): shown as escapes.
  const label = (row: ScenarioTime) => visible(`${row.scenario} (wall ${ratioText(row)} timed work)`);
  const values = rows.flatMap((row) =>
    TIME_PARTS.map((part, order) => {
      const perTrial = row.parts[part.key] / row.trials;
      const share = row.wallSeconds > 0 ? row.parts[part.key] / row.wallSeconds : 0;
      return {
        scenario: label(row),
        part: part.label,
        order,
        perTrial,
        share,
        // Each segment's text for a screen reader (the SVG's aria-label).
        text: `${label(row)}: ${part.label}, ${fmt(perTrial)} s a trial (${(share * 100).toFixed(0)}% of the wall)`,
      };
    }),
  );
  const labels = TIME_PARTS.map((p) => p.label);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    config: { font: 'system-ui, sans-serif', view: { stroke: null } },
    description:
      'Where the trial wall time went per scenario: timed work, tool overhead, container start, mount and preparation, output and cleanup, harness in the guest, controller and SSH (the table below gives the figures).',
    data: { values },
    width: 520,
    height: { step: 26 },
    mark: { type: 'bar', stroke: '#333', strokeWidth: 0.6 },
    encoding: {
      y: { field: 'scenario', type: 'nominal', title: null, sort: rows.map(label), axis: { labelLimit: 360 } },
      x: {
        field: 'perTrial',
        type: 'quantitative',
        stack: 'normalize',
        title: 'share of the trial wall time',
        axis: { format: '%' },
      },
      color: {
        field: 'part',
        type: 'nominal',
        title: null,
        sort: labels,
        scale: { domain: labels, range: GREYS },
        legend: { orient: 'bottom', columns: 4, labelLimit: 240, symbolStrokeColor: '#333', symbolStrokeWidth: 0.6 },
      },
      order: { field: 'order' },
      description: { field: 'text' },
      tooltip: [
        { field: 'scenario' },
        { field: 'part' },
        { field: 'perTrial', title: 'seconds per trial', format: '.2f' },
        { field: 'share', format: '.0%' },
      ],
    },
  } as TopLevelSpec;
}

/** The section, or undefined when no trial of the run has phases (runs before they were kept). */
export function trialTimeSection(rows: readonly ScenarioTime[]): Section | undefined {
  const shown = rows.filter((r) => r.trials > 0);
  if (!shown.length) return undefined;
  const unitemised = rows.reduce((n, r) => n + r.unitemised, 0);
  const dropped = rows.find((r) => r.dropped !== undefined)?.dropped;
  const blocks: Block[] = [
    paragraph(
      prose(
        "Each done trial's wall time as the controller measured it, split by the phases its guest marked: **timed work** is what the tool times (fio, dbench: the jobs' ramp and runtime as set; the scenarios that time themselves: the timed span), **tool overhead** the rest of the tool's run (fio's file layout, start-up), then container start, mount and preparation, output and cleanup, the harness in the guest (run-trial.sh and the scenario script's own start), and the controller and SSH (the wall outside the guest's marks). Seconds per trial (share of the wall).",
      ),
    ),
    {
      kind: 'figure',
      caption: plain('Where the trial wall time went, per scenario (share of the wall; darkest: timed work)'),
      spec: trialTimeSpec(shown),
    },
    table(
      ['scenario', 'trials', 'wall', ...TIME_PARTS.map((p) => p.label), 'wall / timed work'],
      ['left', 'right', 'right', ...TIME_PARTS.map(() => 'right' as const), 'right'],
      shown.map((row) =>
        [
          row.scenario,
          String(row.trials),
          `${fmt(row.wallSeconds / row.trials)} s`,
          ...TIME_PARTS.map((p) => partCell(row.parts[p.key], row)),
          ratioText(row),
        ].map(plain),
      ),
    ),
  ];
  if (unitemised) {
    blocks.push(
      paragraph(
        plain(
          `${unitemised} done trial(s) are not itemised: their guest kept no phases${dropped ? ` or they were dropped (first: ${dropped})` : ''}.`,
        ),
      ),
    );
  }
  return { level: 3, title: plain('Where the trial time went'), blocks };
}
