import { MIN_DRIFT_TRIALS } from '../analyze/order-effects.js';
import { kendallSmallestP } from '../analyze/rank-correlation.js';
import type { OrderEffect, ScenarioAnalysis } from '../analyze/types.js';
import { ALPHA, pValue } from '../analyze/verdict.js';
import { NO_MOUNT } from '../catalog.js';
import { type Inline, type Section, inline, paragraph, plain, prose } from './model.js';

/**
 * The report's section on order effects: did a cell's values drift with the
 * position of their trials in the run? Words only; the test is the
 * analysis's (lab/analyze/order-effects.ts). A section of its own so that the
 * renderers need nothing new.
 */

type Cell = OrderEffect & { scenario: string };

/** Did the value move the good way (throughput up, seconds down) over the run? */
const improved = (c: Cell) => (c.tau ?? 0) > 0 === (c.metric.better === 'higher');

function cellName(c: Cell): string {
  const series = c.series && c.series !== 'all' ? ` of ${c.series}` : '';
  const mount = c.mount === NO_MOUNT ? '' : `, mount ${c.mount}`;
  return `${c.scenario} ${c.metric.name}${series} on host ${c.host}${mount}`;
}

function driftItem(c: Cell): Inline {
  const stats = `τ ${(c.tau ?? 0).toFixed(2)}, p ${pValue(c.p ?? 1)}, q ${pValue(c.q ?? 1)}, ${c.trials} trials`;
  return inline`${cellName(c)}: **${(c.tau ?? 0) > 0 ? 'rising' : 'falling'}** over the run — ${improved(c) ? 'getting better' : 'getting worse'} (${stats})`;
}

/** What tends to make a run's values drift each way (the reader checks which fits the lab). */
function causesText(drifting: readonly Cell[]): string {
  const causes = [
    drifting.some(improved)
      ? "Getting better over the run points at something warming up: the page cache, the engine's image and layer caches, a first-run cost paid only by the first trials."
      : '',
    drifting.some((c) => !improved(c))
      ? "Getting worse points at something filling up or wearing out: a filling disk or thin pool, a host heating into thermal throttling, a cloud volume's burst balance or an instance's CPU credits running out."
      : '',
  ];
  return `${causes.filter(Boolean).join(' ')} The shuffled order keeps a drift from favouring one configuration, but it widens every interval of these cells: read their comparisons with that in mind.`;
}

export function orderEffectsSection(analysis: readonly ScenarioAnalysis[]): Section | undefined {
  const cells: Cell[] = analysis.flatMap((s) => s.orderEffects.map((c) => ({ ...c, scenario: s.name })));
  if (!cells.length) return undefined;
  const tested = cells.filter((c) => c.verdict !== 'too-few-trials');
  const drifting = cells.filter((c) => c.verdict === 'drift').sort((a, b) => (a.q ?? 1) - (b.q ?? 1));
  const tooFew = cells.length - tested.length;
  const byRepetition = cells.filter((c) => c.order === 'repetition').length;
  const fewer = MIN_DRIFT_TRIALS - 1;
  const why = `${fewer} trials in perfect order reach p ${pValue(kendallSmallestP(fewer))} at best`;
  const verdict = drifting.length
    ? inline`**Drift in ${drifting.length} of ${tested.length} tested cells**: their values moved with the position of their trials in the run.`
    : tested.length
      ? plain(
          `No drift: none of the ${tested.length} tested cells moved consistently with its trials' position in the run.`,
        )
      : plain(
          `No cell has the ${MIN_DRIFT_TRIALS} trials a drift check needs (${why}): this run cannot tell whether its values drifted.`,
        );
  const notTested =
    tooFew && tested.length
      ? [
          plain(
            `${tooFew} of ${cells.length} cells have fewer than ${MIN_DRIFT_TRIALS} trials, too few to show a drift (${why}): they are not tested, which is not "no drift".`,
          ),
        ]
      : [];
  const order = byRepetition
    ? [
        plain(
          `For ${byRepetition} cells the journal lacks a trial: their order is the repetition number (the order the plan runs a cell's trials in).`,
        ),
      ]
    : [];
  return {
    level: 2,
    title: plain('Order effects'),
    blocks: [
      paragraph(
        prose(
          `The plan shuffles the configurations in every repetition, so that a value drifting over the run adds noise to every configuration instead of favouring the one that ran first. This checks whether there was such a drift: per cell, Kendall's rank correlation τ between each value and its trial's position in the run (the journal's order), with its exact p, controlled across the report's testable cells like the comparisons (Benjamini–Hochberg; a drift is claimed when q ≤ ${ALPHA}).`,
        ),
      ),
      paragraph(verdict, ...notTested, ...order),
      ...(drifting.length
        ? [
            { kind: 'list' as const, items: drifting.map((c) => ({ text: driftItem(c), items: [] })) },
            paragraph(plain(causesText(drifting))),
          ]
        : []),
    ],
  };
}
