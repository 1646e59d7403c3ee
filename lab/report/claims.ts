import type { ScenarioAnalysis } from '../analyze/analysis.js';
import type { ComparisonRow } from '../analyze/comparison-rows.js';
import { ALPHA, EQUIVALENCE_MARGIN, MIN_RUNS, withinMargin } from '../analyze/verdict.js';
import { EQUIVALENT_MOUNTS, PROFILES, type ProfileName } from '../catalog.js';
import { type LoadedRun, recordedLab } from '../record/load.js';
import { PERMISSION_CASES } from '../scenarios/permissions/cases.js';

/**
 * The seeds' headline claims, answered with this run's numbers. A claim of
 * direction is "confirmed" only when every comparison it rests on shows the
 * claimed direction (the report's family-controlled verdict);
 * "contradicted" when a comparison shows the opposite; otherwise "not shown"
 * with the reason. Its size is judged apart: the seed's own factor against
 * our interval. A claim of no gap is an equivalence statement with a margin.
 * A claim the run has no data for is left out.
 */
export interface ClaimAnswer {
  seed: string;
  claim: string;
  answer: 'confirmed' | 'contradicted' | 'not shown';
  /** The seed's figure against our intervals (claims of direction that quote one). */
  size?: 'as the seed' | 'contradicted' | 'not shown';
  evidence: string[];
}

type Rows = readonly ComparisonRow[];

const rowText = (r: ComparisonRow) =>
  `${r.metric.name}${r.series && r.series !== 'all' ? ` of ${r.series}` : ''}: ${r.a} vs ${r.b}${r.axis === 'mount' ? ` on host ${r.within}` : ` (mount ${r.within})`} — ${r.result.text}`;

/** Both sides have data: a configuration the run did not measure is no evidence. */
const measured = (r: ComparisonRow) => r.result.nA > 0 && r.result.nB > 0;

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
function sizeCheck(
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

interface Candidate {
  row: ComparisonRow;
  better: string;
  /** The seed's own "times worse" for this comparison, when it quotes one. */
  seedFactor?: number;
}

/** "X is slower/worse than Y" over a set of comparison rows, with the seed's size where it gave one. */
function ordered(seed: string, claim: string, candidates: Candidate[]): ClaimAnswer | undefined {
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
  const judged = sizes.filter((x) => x !== undefined).map((x) => x.judged);
  const size: ClaimAnswer['size'] = !judged.length
    ? undefined
    : judged.includes('contradicted')
      ? 'contradicted'
      : judged.every((j) => j === 'as the seed')
        ? 'as the seed'
        : 'not shown';
  return { seed, claim, answer, ...(size ? { size } : {}), evidence };
}

function rowsOf(analysis: readonly ScenarioAnalysis[], scenario: string): Rows {
  return analysis.find((a) => a.name === scenario)?.comparisons ?? [];
}

/** Mount kinds whose data lives on the VM's own disks (hostshare's lives on its host). */
const VM_LOCAL_MOUNTS = ['layer', 'volume', 'bind'];

function driverOf(run: LoadedRun): Map<string, string> {
  const { hosts } = recordedLab(run);
  return new Map(hosts.map((h) => [h.name, PROFILES[h.profile as ProfileName]?.storageDriver ?? '']));
}

/** 004: devicemapper slower than overlay2 to start and to remove containers. */
function devicemapperLifecycle(run: LoadedRun, analysis: readonly ScenarioAnalysis[]): ClaimAnswer | undefined {
  const driver = driverOf(run);
  const rows = rowsOf(analysis, 'lifecycle').filter((r) => {
    const pair = [driver.get(r.a), driver.get(r.b)].sort().join('/');
    return r.axis === 'profile' && pair === 'devicemapper/overlay2' && (r.series === 'run' || r.series === 'rm');
  });
  return ordered(
    '004',
    'devicemapper (direct-lvm) is slower than overlay2 for starting (docker run) and removing (docker rm) containers (seed: 10 runs 38.8 vs 7.5 s, 10 rms 2.29 vs 0.21 s, Docker 1.10)',
    rows.map((row) => ({
      row,
      better: driver.get(row.a) === 'overlay2' ? row.a : row.b,
      seedFactor: row.series === 'run' ? 38.8 / 7.5 : 2.29 / 0.21,
    })),
  );
}

/**
 * 003: no consistent throughput gap between volume, bind and layer on the
 * same disk — an equivalence statement: every 90% interval (two one-sided
 * tests at 5%) within ±EQUIVALENCE_MARGIN. Contradicted by a difference
 * whose whole 95% interval lies beyond the margin; otherwise not shown, with
 * the widest interval (what this run could not rule out). Not on
 * devicemapper hosts: their layers are in the thin pool on the data disk,
 * their volumes and bind sources on the root disk.
 */
function noMountGap(run: LoadedRun, analysis: readonly ScenarioAnalysis[]): ClaimAnswer | undefined {
  const driver = driverOf(run);
  const rows = rowsOf(analysis, 'fio').filter(
    (r) =>
      measured(r) &&
      r.axis === 'mount' &&
      driver.get(r.within) !== 'devicemapper' &&
      r.metric.name === 'bw' &&
      VM_LOCAL_MOUNTS.includes(r.a) &&
      VM_LOCAL_MOUNTS.includes(r.b),
  );
  if (!rows.length) return undefined;
  const margin = EQUIVALENCE_MARGIN;
  const bound = (x: number) => `${((x - 1) * 100).toFixed(0)}%`;
  const equivalent = rows.filter((r) => withinMargin(r.result, margin));
  const beyond = rows.filter(
    (r) =>
      (r.result.verdict === 'a-better' || r.result.verdict === 'b-better') &&
      ((r.result.lo ?? 0) > 1 + margin || (r.result.hi ?? Number.POSITIVE_INFINITY) < 1 / (1 + margin)),
  );
  const claim = `no fio throughput gap larger than ±${(margin * 100).toFixed(0)}% (ratio ${(1 / (1 + margin)).toFixed(2)}–${(1 + margin).toFixed(2)}) between a named volume, a bind mount and the container layer on the same disk (seed: no clear gap)`;
  const widest = rows.reduce(
    (w, r) => {
      const width = Math.max(
        Math.abs(Math.log(r.result.lo90 ?? 0)),
        Math.abs(Math.log(r.result.hi90 ?? Number.POSITIVE_INFINITY)),
      );
      return width > w.width ? { width, row: r } : w;
    },
    { width: 0, row: rows[0] as ComparisonRow },
  );
  const evidence = [
    `${rows.length} bandwidth comparisons between layer, volume and bind on the same host: ${equivalent.length} within ±${(margin * 100).toFixed(0)}% (90% interval), ${beyond.length} with a difference beyond it (95% interval, family-controlled)`,
    ...beyond.map(rowText),
  ];
  let answer: ClaimAnswer['answer'] = 'not shown';
  if (beyond.length) answer = 'contradicted';
  else if (equivalent.length === rows.length) answer = 'confirmed';
  else {
    const r = widest.row.result;
    evidence.push(
      Number.isFinite(widest.width)
        ? `the widest 90% interval, ${bound(r.lo90 as number)} to ${bound(r.hi90 as number)} (${rowText(widest.row)}), reaches beyond ±${(margin * 100).toFixed(0)}%: this run cannot rule out a gap of that size`
        : `at ${widest.row.result.nA} vs ${widest.row.result.nB} runs the intervals are unbounded: this run cannot rule out any gap (${MIN_RUNS} per side bound them)`,
    );
  }
  return { seed: '003', claim, answer, evidence };
}

/** Mount comparisons of one metric between hostshare and the VM-local kinds. */
function hostshareRows(
  analysis: readonly ScenarioAnalysis[],
  scenario: string,
  metric: string,
  local: readonly string[],
) {
  return rowsOf(analysis, scenario).filter(
    (r) =>
      r.axis === 'mount' &&
      r.metric.name === metric &&
      [r.a, r.b].includes('hostshare') &&
      local.includes(r.a === 'hostshare' ? r.b : r.a),
  );
}

/** 002: dbench on a folder mounted from the VM's host is much slower than on the container's own file system. */
function sharedFolderSlowerForDbench(analysis: readonly ScenarioAnalysis[]): ClaimAnswer | undefined {
  return ordered(
    '002',
    "dbench on a folder shared from the VM's host (hostshare) is much slower than on VM-local storage (seed: boot2docker's vboxsf mount 1.16 MB/s vs its container file system 30.2 MB/s)",
    hostshareRows(analysis, 'dbench', 'throughput', VM_LOCAL_MOUNTS).map((row) => ({
      row,
      better: row.a === 'hostshare' ? row.b : row.a,
      seedFactor: 30.2 / 1.16,
    })),
  );
}

/**
 * 000: the dump import into a named volume (on the VM's disk) is much slower
 * than into a bind-mounted host folder — the seed's direction (Docker for Mac
 * 1.12: 4m14s vs 20s), the opposite of 002's.
 */
function namedVolumeSlowerForImport(analysis: readonly ScenarioAnalysis[]): ClaimAnswer | undefined {
  return ordered(
    '000',
    "the MySQL dump import into a named volume (on the VM's disk) is much slower than into a bind-mounted folder of the VM's host (hostshare) (seed: 4m14s vs 20.5 s, Docker for Mac 1.12)",
    hostshareRows(analysis, 'db-import', 'seconds', ['volume']).map((row) => ({
      row,
      better: 'hostshare',
      seedFactor: 254 / 20.5,
    })),
  );
}

/** 003: the seven permission outcomes. */
function permissionOutcomes(analysis: readonly ScenarioAnalysis[]): ClaimAnswer | undefined {
  const samples = analysis.find((a) => a.name === 'permissions')?.samples.filter((s) => s.metric === 'wrote') ?? [];
  if (!samples.length) return undefined;
  const evidence: string[] = [];
  let differ = 0;
  for (const c of PERMISSION_CASES) {
    const runs = samples.filter((s) => s.case === c.name);
    if (!runs.length) continue;
    const wrote = runs.filter((s) => s.value === 1).length;
    const expected = c.seed.wrote ? runs.length : 0;
    if (wrote !== expected) {
      differ++;
      evidence.push(
        `${c.name}: wrote in ${wrote} of ${runs.length} trials; seed 003: ${c.seed.wrote ? 'wrote' : 'denied'}`,
      );
    }
  }
  const cases = new Set(samples.map((s) => s.case)).size;
  evidence.unshift(`${cases - differ} of ${cases} cases as in seed 003 on every host and repetition`);
  return {
    seed: '003',
    claim:
      'a uid-65534 container cannot write to a missing or host-user-owned bind path or a volume holding root-owned files; chown, --user and fresh (or emptied) volumes work',
    answer: differ ? 'contradicted' : 'confirmed',
    evidence,
  };
}

export function answerClaims(run: LoadedRun, analysis: readonly ScenarioAnalysis[]): ClaimAnswer[] {
  return [
    devicemapperLifecycle(run, analysis),
    noMountGap(run, analysis),
    namedVolumeSlowerForImport(analysis),
    sharedFolderSlowerForDbench(analysis),
    permissionOutcomes(analysis),
  ].filter((a): a is ClaimAnswer => a !== undefined);
}

export function claimsSection(answers: readonly ClaimAnswer[]): string[] {
  if (!answers.length) return [];
  const out = [
    '## Seed claims',
    '',
    `Each seed's headline claim, answered with this run's comparisons (exact rank-sum tests, Hodges–Lehmann ratios with 95% distribution-free intervals, verdicts controlled at a ${(ALPHA * 100).toFixed(0)}% false discovery rate across the report). Direction — confirmed: every comparison points the claimed way; contradicted: one points the other way; not shown: no difference shown, or too few runs. Size: the seed's own factor against our interval. No-gap claims: every 90% interval within the stated margin.`,
    '',
  ];
  for (const a of answers) {
    const size = a.size ? `; size: **${a.size}**` : '';
    out.push(`- **${a.answer}**${size} (seed ${a.seed}): ${a.claim}`);
    for (const e of a.evidence) out.push(`  - ${e}`);
  }
  out.push('');
  return out;
}

/**
 * Comparisons of pairs that are the same by construction (the catalog's
 * volume vs bind, and the lab's own `equivalent` pairs): the run's built-in
 * A/A check. A difference there says the lab is noisier than its intervals
 * admit — a warning about the lab, not a finding.
 */
export function calibrationRows(run: LoadedRun, analysis: readonly ScenarioAnalysis[]): ComparisonRow[] {
  const lab = recordedLab(run);
  const pairs = [...EQUIVALENT_MOUNTS, ...lab.equivalent].map(([a, b]) => [a, b].sort().join('\0'));
  return analysis.flatMap((s) =>
    s.comparisons.filter((r) => measured(r) && pairs.includes([r.a, r.b].sort().join('\0'))),
  );
}

export function calibrationSection(rows: readonly ComparisonRow[]): string[] {
  if (!rows.length) return [];
  const differing = rows.filter((r) => r.result.verdict === 'a-better' || r.result.verdict === 'b-better');
  const decided = rows.filter((r) => r.result.verdict !== 'not-enough-runs' && r.result.verdict !== 'undefined');
  const out = ['## Calibration check (A/A pairs)', ''];
  out.push(
    `${rows.length} comparisons of pairs that are the same by construction (volume vs bind: both plain directories on the file system holding /var/lib/docker${rows.some((r) => !['volume', 'bind'].includes(r.a)) ? "; and the lab's equivalent pairs" : ''}). ${
      !decided.length
        ? `None had enough runs to show anything (${MIN_RUNS} per side can): this run has no calibration check.`
        : differing.length
          ? `**Warning: ${differing.length} of ${decided.length} show a difference.** The mechanism is the same, so this is noise the method did not expect (a drifting host, a busy machine) or a difference in the lab itself: treat this run's other differences of the same size with caution.`
          : `None of ${decided.length} shows a difference: consistent with a calibrated run.`
    }`,
    '',
  );
  for (const r of differing) out.push(`- ${rowText(r)}`);
  if (differing.length) out.push('');
  return out;
}
