import type { ScenarioAnalysis } from '../analyze/analysis.js';
import type { ComparisonRow } from '../analyze/comparisons.js';
import { binomialTail } from '../analyze/stats.js';
import { PROFILES, type ProfileName } from '../catalog.js';
import { PERMISSION_CASES } from '../scenarios/permissions/cases.js';
import { type LoadedRun, recordedLab } from './load-run.js';

/**
 * The seeds' headline claims, answered with this run's numbers. A claim is
 * "confirmed" only when every comparison it rests on shows the claimed
 * direction with a 95% interval that excludes 1; "contradicted" when a
 * comparison shows the opposite, or (for a claim of no difference) when one
 * shows a difference; otherwise "not shown" with the reason. A claim the run
 * has no data for is left out.
 */
export interface ClaimAnswer {
  seed: string;
  claim: string;
  answer: 'confirmed' | 'contradicted' | 'not shown';
  evidence: string[];
}

type Rows = readonly ComparisonRow[];

const rowText = (r: ComparisonRow) =>
  `${r.metric.name}${r.series && r.series !== 'all' ? ` of ${r.series}` : ''}: ${r.a} vs ${r.b}${r.axis === 'mount' ? ` on host ${r.within}` : ` (mount ${r.within})`} — ${r.result.text}`;

/** Both sides have data: a configuration the run did not measure is no evidence. */
const measured = (r: ComparisonRow) => r.result.nA > 0 && r.result.nB > 0;

/** Did side `worse` come out worse than `better` in this row (interval excluding 1)? */
function direction(r: ComparisonRow, better: string): 'as-claimed' | 'opposite' | 'none' {
  const v = r.result.verdict;
  if (v !== 'a-better' && v !== 'b-better') return 'none';
  const winner = v === 'a-better' ? r.a : r.b;
  return winner === better ? 'as-claimed' : 'opposite';
}

/** "X is slower/worse than Y" over a set of comparison rows. */
function ordered(
  seed: string,
  claim: string,
  candidates: { row: ComparisonRow; better: string }[],
): ClaimAnswer | undefined {
  const rows = candidates.filter(({ row }) => measured(row));
  if (!rows.length) return undefined;
  const outcomes = rows.map(({ row, better }) => direction(row, better));
  const evidence = rows.map(({ row }) => rowText(row));
  const enough = rows.every(({ row }) => row.result.verdict !== 'not-enough-runs');
  let answer: ClaimAnswer['answer'] = 'not shown';
  if (outcomes.includes('opposite')) answer = 'contradicted';
  else if (enough && outcomes.every((o) => o === 'as-claimed')) answer = 'confirmed';
  if (!enough) evidence.push('some comparisons have fewer than 3 runs per side: nothing can be claimed from them');
  return { seed, claim, answer, evidence };
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
    rows.map((row) => ({ row, better: driver.get(row.a) === 'overlay2' ? row.a : row.b })),
  );
}

/**
 * 003: no consistent throughput gap between volume, bind and layer on the
 * same disk. Not on devicemapper hosts: their layers are in the thin pool on
 * the data disk, their volumes and bind sources on the root disk.
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
  const differences = rows.filter((r) => r.result.verdict === 'a-better' || r.result.verdict === 'b-better');
  const enough = rows.filter((r) => r.result.verdict !== 'not-enough-runs');
  // Each comparison claims a difference by chance 5% of the time (the A/A selftest measured
  // 4.2%): a gap is shown only by more differences than chance gives in 95% of runs.
  const byChance = binomialTail(differences.length, enough.length, 0.05);
  const claim =
    'no consistent fio throughput gap between a named volume, a bind mount and the container layer on the same disk';
  const evidence = [
    `${rows.length} bandwidth comparisons between layer, volume and bind on the same host: ${differences.length} with a consistent difference, ${enough.length - differences.length} without, ${rows.length - enough.length} with too few runs${differences.length ? `; chance alone gives ${differences.length} or more of ${enough.length} in ${(byChance * 100).toPrecision(2)}% of runs` : ''}`,
    ...differences.map(rowText),
  ];
  let answer: ClaimAnswer['answer'] = 'not shown';
  if (enough.length && byChance >= 0.05) answer = 'confirmed';
  if (differences.length && byChance < 0.05) answer = 'contradicted';
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
    hostshareRows(analysis, 'db-import', 'seconds', ['volume']).map((row) => ({ row, better: 'hostshare' })),
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
    "Each seed's headline claim, answered with this run's comparisons (95% bootstrap intervals of the ratio of medians). Confirmed: every comparison points the claimed way; contradicted: one points the other way; not shown: the intervals include no difference or the runs are too few.",
    '',
  ];
  for (const a of answers) {
    out.push(`- **${a.answer}** (seed ${a.seed}): ${a.claim}`);
    for (const e of a.evidence) out.push(`  - ${e}`);
  }
  out.push('');
  return out;
}
