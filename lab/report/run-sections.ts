import type { ComparisonRow } from '../analyze/comparison-rows.js';
import { describe } from '../analyze/stats.js';
import { ALPHA, MIN_RUNS } from '../analyze/verdict.js';
import type { JournalEntry } from '../record/journal.js';
import type { LoadedRun } from '../record/load.js';
import { fmt, groupBy } from './format.js';
import { comparisonAnchor } from './glance.js';
import { type Section, inline, paragraph, plain, prose, table } from './model.js';

/** The report's sections about the run rather than a scenario: comparisons, failures, noise, files. */

/** What is compared with what, for the rows at hand. */
function axesText(rows: readonly ComparisonRow[]): string {
  const labels = [...new Set(rows.filter((r) => r.axis === 'series').map((r) => r.series))];
  const series = labels.length
    ? `, and ways of doing the same work (${labels.join(', ')}) with each other on the same host`
    : '';
  return `Mount kinds are compared on the same host, hosts (profiles) on the same mount kind${series}.`;
}

/** A scenario's comparisons: how to read them, the tally, one row per comparison. */
export function comparisonSection(rows: readonly ComparisonRow[], scenario: string): Section | undefined {
  if (!rows.length) return undefined;
  const count = (v: string) => rows.filter((r) => r.result.verdict === v).length;
  const differences = count('a-better') + count('b-better');
  const family = rows.find((r) => r.result.family !== undefined)?.result.family ?? 0;
  const undefinedCount = count('undefined') ? `, ${count('undefined')} undefined` : '';
  return {
    level: 3,
    title: plain('Comparisons'),
    blocks: [
      paragraph(
        prose(
          `Typical ratio A/B (Hodges–Lehmann, on the log scale) with its 95% distribution-free interval, and the exact rank-sum test's p. A difference is claimed only when q — p adjusted over the report's ${family} testable comparisons (Benjamini–Hochberg) — is at most ${ALPHA}: on average at most 1 in 20 claimed differences is a fluke. Fewer than ${MIN_RUNS} runs per side cannot show a difference at 95% and are not tested. ${axesText(rows)}`,
        ),
      ),
      paragraph(
        inline`${rows.length} comparisons: **${differences} consistent difference(s)**, ${count('no-difference')} with no consistent difference, ${count('not-enough-runs')} with too few runs to show one${undefinedCount}.`,
      ),
      {
        ...table(
          ['within', 'series', 'metric', 'A vs B', 'n', 'verdict', 'detectable at this n'],
          ['left', 'left', 'left', 'left', 'left', 'left', 'right'],
          rows.map((r) =>
            [
              r.axis === 'profile' ? `mount ${r.within}` : `host ${r.within}`,
              r.series,
              `${r.metric.name} (${r.metric.better} is better)`,
              `${r.a} vs ${r.b}`,
              `${r.result.nA}/${r.result.nB}`,
              r.result.text,
              r.result.minDetectable === undefined ? '–' : `±${(r.result.minDetectable * 100).toFixed(0)}%`,
            ].map(plain),
          ),
        ),
        // What the matrix's cells link to.
        rowIds: rows.map((r) => comparisonAnchor(scenario, r)),
      },
    ],
  };
}

export function failedTrialsSection(failed: readonly JournalEntry[]): Section | undefined {
  if (!failed.length) return undefined;
  return {
    level: 2,
    title: plain('Failed trials'),
    blocks: [
      table(
        ['trial', 'host', 'reason'],
        ['left', 'left', 'left'],
        failed.map((f) => [f.trial, f.host, f.reason ?? ''].map(plain)),
      ),
    ],
  };
}

/**
 * Load and steal per host. A trial is flagged busy when the 1-minute load
 * before it was at or above the host's CPU count: something else was running
 * (trials run back to back, so part of that load is the previous trial's tail).
 */
export function noiseSection(run: LoadedRun): Section | undefined {
  if (!run.noise.length) return undefined;
  const rows = [...groupBy(run.noise, (n) => n.host)].map(([host, trials]) => {
    const cpus = Number(run.env.get(host)?.cpus) || 1;
    const load = describe(trials.map((t) => t.load1Before));
    const steal = trials.map((t) => t.stealSeconds);
    const busy = trials.filter((t) => t.load1Before >= cpus).map((t) => t.trial);
    return [
      host,
      String(trials.length),
      `${fmt(load.median)} (${fmt(load.max)})`,
      `${fmt(steal.reduce((a, b) => a + b, 0))} (${fmt(Math.max(...steal))})`,
      busy.length ? busy.join(', ') : 'none',
    ].map(plain);
  });
  return {
    level: 2,
    title: plain('Noise'),
    blocks: [
      paragraph(
        prose(
          "Load average (1 min) before each trial and CPU steal during it, from `/proc` on the host. A trial is flagged busy when the load before it reached the host's CPU count.",
        ),
      ),
      table(
        ['host', 'trials', 'load before: median (max)', 'steal s: total (max)', 'busy trials'],
        ['left', 'right', 'left', 'left', 'left'],
        rows,
      ),
    ],
  };
}

export const FILES_SECTION: Section = {
  level: 2,
  title: plain('Files'),
  blocks: [
    paragraph(
      prose(
        '`manifest.json` (lab, inventory, versions) · `plan.json` (trial order) · `journal.ndjson` (trial states) · `samples.ndjson` (one value per line) · `trials/<id>/` (raw output + meta.json) · `hosts/<host>/env/`',
      ),
    ),
  ],
};
