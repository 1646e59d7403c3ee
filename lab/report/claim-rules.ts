import type { ComparisonRow } from '../analyze/comparison-rows.js';
import type { ScenarioAnalysis } from '../analyze/types.js';
import { EQUIVALENCE_MARGIN, MIN_RUNS, withinMargin } from '../analyze/verdict.js';
import { MOUNT_KIND_NAMES, PROFILES, type ProfileName, SHARED_FOLDER_MOUNTS } from '../catalog.js';
import type { RecordedLab } from '../record/load.js';
import type { ClaimAnswer } from './model.js';

/**
 * The parts the seed claims are made of (each claim lives with its scenario,
 * lab/scenarios/<name>/report.ts): comparison rows as evidence, a claimed
 * direction over a set of rows, the seed's size against our interval. Only
 * type imports from the record: the scenario registry loads this module.
 */

export type Rows = readonly ComparisonRow[];

/** Where a row's two sides meet: "on host xfs" (mount kinds, a scenario's series) or "(mount layer)" (hosts). */
export const withinText = (r: ComparisonRow) => (r.axis === 'profile' ? `(mount ${r.within})` : `on host ${r.within}`);

export const rowText = (r: ComparisonRow) =>
  `${r.metric.name}${r.axis !== 'series' && r.series && r.series !== 'all' ? ` of ${r.series}` : ''}: ${r.a} vs ${r.b} ${withinText(r)} — ${r.result.text}`;

/** Both sides have data: a configuration the run did not measure is no evidence. */
export const measured = (r: ComparisonRow) => r.result.nA > 0 && r.result.nB > 0;

/** Did side `better` come out better in this row (family-controlled verdict)? */
function direction(r: ComparisonRow, better: string): 'as-claimed' | 'opposite' | 'none' {
  const v = r.result.verdict;
  if (v !== 'a-better' && v !== 'b-better') return 'none';
  const winner = v === 'a-better' ? r.a : r.b;
  return winner === better ? 'as-claimed' : 'opposite';
}

const times = (x: number) => (Number.isFinite(x) ? `${x < 10 ? x.toFixed(2) : x.toFixed(1)}×` : '∞');

/**
 * How many times worse the claimed-worse side came out, with the 95%
 * interval, in the seed's orientation: worse/better for seconds and
 * latency, better/worse for throughput — so 1 means no gap and the seed's
 * "5× slower" reads as 5 either way.
 */
function timesWorse(r: ComparisonRow, better: string): { est: number; lo: number; hi: number } | undefined {
  const { ratio, lo, hi } = r.result;
  if (ratio === undefined || lo === undefined || hi === undefined) return undefined;
  const invert = (better === r.a) !== (r.metric.better === 'higher');
  return invert ? { est: 1 / ratio, lo: 1 / hi, hi: 1 / lo } : { est: ratio, lo, hi };
}

/** The seed's factor against our interval, as a sentence and a judgement. */
export function sizeCheck(
  r: ComparisonRow,
  better: string,
  seedFactor: number,
): { judged: ClaimAnswer['size']; text: string } {
  const ours = timesWorse(r, better);
  if (!ours || !Number.isFinite(ours.lo) || !Number.isFinite(ours.hi) || ours.lo <= 0) {
    return {
      judged: 'not shown',
      text: `size: the seed's ${times(seedFactor)} cannot be checked (no bounded interval at this n)`,
    };
  }
  const interval = `${times(ours.lo)}–${times(ours.hi)}`;
  if (seedFactor >= ours.lo && seedFactor <= ours.hi)
    return {
      judged: 'as the seed',
      text: `size: the seed's ${times(seedFactor)} lies inside our ${interval} (estimate ${times(ours.est)})`,
    };
  return {
    judged: 'contradicted',
    text: `size contradicted: the seed's ${times(seedFactor)} lies ${seedFactor > ours.hi ? 'above' : 'below'} our ${interval} (estimate ${times(ours.est)})`,
  };
}

export interface Candidate {
  row: ComparisonRow;
  better: string;
  /** The seed's own "times worse" for this comparison, when it quotes one. */
  seedFactor?: number;
}

/** "X is slower/worse than Y" over a set of comparison rows, with the seed's size where it gave one. */
export function ordered(seed: string, claim: string, candidates: Candidate[]): ClaimAnswer | undefined {
  const rows = candidates.filter(({ row }) => measured(row));
  if (!rows.length) return undefined;
  const outcomes = rows.map(({ row, better }) => direction(row, better));
  const enough = rows.every(({ row }) => row.result.verdict !== 'not-enough-runs');
  const sizes = rows.map((c) => (c.seedFactor === undefined ? undefined : sizeCheck(c.row, c.better, c.seedFactor)));
  const evidence = rows.map(({ row }, i) => `${rowText(row)}${sizes[i] ? `; ${sizes[i]?.text}` : ''}`);
  let answer: ClaimAnswer['answer'] = 'not shown';
  if (outcomes.includes('opposite')) answer = 'contradicted';
  else if (enough && outcomes.every((o) => o === 'as-claimed')) answer = 'confirmed';
  if (!enough)
    evidence.push(`some comparisons have too few runs to show a difference at 95% (${MIN_RUNS} per side can)`);
  const size = claimSize(sizes.filter((x) => x !== undefined).map((x) => x.judged));
  return { seed, claim, answer, ...(size ? { size } : {}), evidence };
}

/** A claim's size over its comparisons' size checks: any contradicted, all as the seed, or not shown; none judged, none. */
export function claimSize(judged: readonly ClaimAnswer['size'][]): ClaimAnswer['size'] {
  if (!judged.length) return undefined;
  if (judged.includes('contradicted')) return 'contradicted';
  return judged.every((j) => j === 'as the seed') ? 'as the seed' : 'not shown';
}

/** Equivalence bounds as "-9%" / "10%". */
const bound = (x: number) => `${((x - 1) * 100).toFixed(0)}%`;

/** The comparison whose 90% interval reaches furthest from 1 (what the run could not rule out). */
function widestOf(rows: Rows): ComparisonRow {
  return rows.reduce(
    (w, r) => {
      const width = Math.max(
        Math.abs(Math.log(r.result.lo90 ?? 0)),
        Math.abs(Math.log(r.result.hi90 ?? Number.POSITIVE_INFINITY)),
      );
      return width > w.width ? { width, row: r } : w;
    },
    { width: -1, row: rows[0] as ComparisonRow },
  ).row;
}

/** "±10% (ratio 0.91–1.10)": the margin as the claims state it. */
export const marginText = (margin: number) =>
  `±${(margin * 100).toFixed(0)}% (ratio ${(1 / (1 + margin)).toFixed(2)}–${(1 + margin).toFixed(2)})`;

/**
 * "X and Y are about the same" over a set of comparison rows: an
 * equivalence statement, every 90% interval (two one-sided tests at 5%)
 * within ±margin. Contradicted by a difference whose whole 95% interval lies
 * beyond the margin; otherwise not shown, with the widest interval (what this
 * run could not rule out). `what` names the rows in the first evidence line.
 */
export function equivalent(
  seed: string,
  claim: string,
  rows: Rows,
  what: string,
  margin = EQUIVALENCE_MARGIN,
): ClaimAnswer | undefined {
  const judged = rows.filter(measured);
  if (!judged.length) return undefined;
  const pct = `±${(margin * 100).toFixed(0)}%`;
  const within = judged.filter((r) => withinMargin(r.result, margin));
  const beyond = judged.filter(
    (r) =>
      (r.result.verdict === 'a-better' || r.result.verdict === 'b-better') &&
      ((r.result.lo ?? 0) > 1 + margin || (r.result.hi ?? Number.POSITIVE_INFINITY) < 1 / (1 + margin)),
  );
  const evidence = [
    `${judged.length} ${what}: ${within.length} within ${pct} (90% interval), ${beyond.length} with a difference beyond it (95% interval, family-controlled)`,
    ...beyond.map(rowText),
  ];
  let answer: ClaimAnswer['answer'] = 'not shown';
  if (beyond.length) answer = 'contradicted';
  else if (within.length === judged.length) answer = 'confirmed';
  else {
    const widest = widestOf(judged);
    const r = widest.result;
    evidence.push(
      r.lo90 !== undefined && r.hi90 !== undefined && r.lo90 > 0 && Number.isFinite(r.hi90)
        ? `the widest 90% interval, ${bound(r.lo90)} to ${bound(r.hi90)} (${rowText(widest)}), reaches beyond ${pct}: this run cannot rule out a gap of that size`
        : `at ${r.nA} vs ${r.nB} runs the intervals are unbounded: this run cannot rule out any gap (${MIN_RUNS} per side bound them)`,
    );
  }
  return { seed, claim, answer, evidence };
}

export function rowsOf(analysis: readonly ScenarioAnalysis[], scenario: string): Rows {
  return analysis.find((a) => a.name === scenario)?.comparisons ?? [];
}

/** Mount kinds whose data lives on the VM's own disks (the hostshare kinds' lives on its host). */
export const VM_LOCAL_MOUNTS: readonly string[] = MOUNT_KIND_NAMES.filter((k) => !SHARED_FOLDER_MOUNTS.includes(k));

/** Each host's storage driver, from its profile in the catalog. */
export function driverOf(lab: RecordedLab): Map<string, string> {
  return new Map(lab.hosts.map((h) => [h.name, PROFILES[h.profile as ProfileName]?.storageDriver ?? '']));
}

const isShared = (mount: string) => (SHARED_FOLDER_MOUNTS as readonly string[]).includes(mount);

/** Mount comparisons of one metric between a shared folder (any hostshare kind) and the VM-local kinds. */
export function hostshareRows(
  analysis: readonly ScenarioAnalysis[],
  scenario: string,
  metric: string,
  local: readonly string[],
): Rows {
  return rowsOf(analysis, scenario).filter(
    (r) =>
      r.axis === 'mount' &&
      r.metric.name === metric &&
      isShared(r.a) !== isShared(r.b) &&
      local.includes(isShared(r.a) ? r.b : r.a),
  );
}

/** The shared-folder side of a hostshareRows row. */
export const sharedSide = (row: { a: string; b: string }) => (isShared(row.a) ? row.a : row.b);

/**
 * The hosts a claim judges: those of `eligible` whose profile is one of the
 * seed's own stack when the lab has any (the claim is then judged on the
 * seed's stack alone), else every eligible host (the report lists their
 * stacks as unlike the seed's).
 */
export function stackHosts(
  lab: RecordedLab,
  seedProfiles: readonly string[],
  eligible: (host: { name: string; profile: string }) => boolean = () => true,
): string[] {
  const hosts = lab.hosts.filter(eligible);
  const own = hosts.filter((h) => seedProfiles.includes(h.profile));
  return (own.length ? own : hosts).map((h) => h.name);
}
