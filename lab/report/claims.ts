import type { ComparisonRow } from '../analyze/comparison-rows.js';
import { ALPHA, MIN_RUNS } from '../analyze/verdict.js';
import { EQUIVALENT_MOUNTS } from '../catalog.js';
import { SCENARIOS } from '../scenarios/index.js';
import type { Scenario } from '../scenarios/types.js';
import { measured, rowText } from './claim-rules.js';
import type { ClaimAnswer, ClaimContext, Section } from './model.js';
import { paragraph, plain, prose } from './model.js';
import { parameterLines } from './seed-facts.js';

/**
 * A scenario's parameters as the run recorded them, with the scenario's
 * defaults filled in; as recorded when today's schema refuses them (a run of
 * another version), undefined when the scenario was not in the lab.
 */
function recordedParams(lab: ClaimContext['lab'], scenario: Scenario<unknown>): unknown {
  const recorded = lab.scenarios[scenario.name];
  if (recorded === undefined) return undefined;
  const parsed = scenario.params.safeParse(recorded);
  return parsed.success ? parsed.data : recorded;
}

/**
 * The seed claims every registered scenario answers, in their report order,
 * each with its seed's parameters beside this run's; a claim the run has no
 * data for is left out.
 */
export function answerClaims(ctx: ClaimContext): ClaimAnswer[] {
  const rules = Object.values(SCENARIOS).flatMap((s: Scenario<unknown>) =>
    s.report.claims.map((rule) => ({ rule, scenario: s })),
  );
  return rules
    .sort((a, b) => a.rule.position - b.rule.position)
    .flatMap(({ rule, scenario }) => {
      const answer = rule.answer(ctx);
      if (!answer) return [];
      if (!rule.seedParameters) return [answer];
      const params = recordedParams(ctx.lab, scenario);
      const repetitions = ctx.lab.scenarioRepetitions[scenario.name] ?? ctx.lab.repetitions;
      const judged = rule.hosts?.(ctx);
      const facts = {
        hosts: ctx.lab.hosts.filter((h) => !judged || judged.includes(h.name)),
        samples: ctx.analysis.find((a) => a.name === scenario.name)?.samples ?? [],
        network: ctx.lab.containerNetwork,
      };
      return [{ ...answer, parameters: parameterLines(rule.seedParameters, params, repetitions, facts) }];
    });
}

export function claimsSection(answers: readonly ClaimAnswer[]): Section | undefined {
  if (!answers.length) return undefined;
  return {
    level: 2,
    title: plain('Seed claims'),
    // The answers first (the report's first screen), how they were reached after.
    blocks: [
      { kind: 'claims', answers },
      paragraph(
        prose(
          `Each seed's headline claim, answered with this run's comparisons (exact rank-sum tests, Hodges–Lehmann ratios with 95% distribution-free intervals, verdicts controlled at a ${(ALPHA * 100).toFixed(0)}% false discovery rate across the report). Direction — confirmed: every comparison points the claimed way; contradicted: one points the other way; not shown: no difference shown, or too few runs. Size: the seed's own factor against our interval. No-gap claims: every 90% interval within the stated margin. Under each claim: every parameter of this run unlike the seed's experiment (with the seed's own words), then those it shares.`,
        ),
      ),
    ],
  };
}

/**
 * Comparisons of pairs that are the same by construction (the catalog's
 * volume vs bind, and the lab's own `equivalent` pairs): the run's built-in
 * A/A check. A difference there says the lab is noisier than its intervals
 * admit — a warning about the lab, not a finding.
 */
export function calibrationRows({ analysis, lab }: ClaimContext): ComparisonRow[] {
  const pairs = [...EQUIVALENT_MOUNTS, ...lab.equivalent].map(([a, b]) => [a, b].sort().join('\0'));
  // Pairs name mount kinds or hosts: a comparison of a scenario's own series (backup methods) is none of them.
  return analysis.flatMap((s) =>
    s.comparisons.filter((r) => r.axis !== 'series' && measured(r) && pairs.includes([r.a, r.b].sort().join('\0'))),
  );
}

/** The calibration check's verdict: nothing decided, a warning, or consistent. */
function calibrationText(rows: readonly ComparisonRow[], differing: number, decided: number): string {
  const pairs = `volume vs bind: both plain directories on the file system holding /var/lib/docker${rows.some((r) => !['volume', 'bind'].includes(r.a)) ? "; and the lab's equivalent pairs" : ''}`;
  const verdict = !decided
    ? `None had enough runs to show anything (${MIN_RUNS} per side can): this run has no calibration check.`
    : differing
      ? `**Warning: ${differing} of ${decided} show a difference.** The mechanism is the same, so this is noise the method did not expect (a drifting host, a busy machine) or a difference in the lab itself: treat this run's other differences of the same size with caution.`
      : `None of ${decided} shows a difference: consistent with a calibrated run.`;
  return `${rows.length} comparisons of pairs that are the same by construction (${pairs}). ${verdict}`;
}

export function calibrationSection(rows: readonly ComparisonRow[]): Section | undefined {
  if (!rows.length) return undefined;
  const differing = rows.filter((r) => r.result.verdict === 'a-better' || r.result.verdict === 'b-better');
  const decided = rows.filter((r) => r.result.verdict !== 'not-enough-runs' && r.result.verdict !== 'undefined');
  return {
    level: 2,
    title: plain('Calibration check (A/A pairs)'),
    blocks: [
      paragraph(prose(calibrationText(rows, differing.length, decided.length))),
      ...(differing.length
        ? [{ kind: 'list' as const, items: differing.map((r) => ({ text: plain(rowText(r)), items: [] })) }]
        : []),
    ],
  };
}
