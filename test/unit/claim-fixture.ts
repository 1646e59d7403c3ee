/**
 * Made-up runs for the seed-claim tests of the scenarios' report modules
 * (test/unit/scenarios/<name>/report.test.ts): samples of a known answer, a
 * run of them held in memory, and the claims the report gives it.
 */
import { analyzeRun } from '../../lab/analyze/analysis.ts';
import { recordedLab } from '../../lab/record/load.ts';
import type { Sample } from '../../lab/record/samples.ts';
import { answerClaims } from '../../lab/report/claims.ts';
import type { ClaimAnswer } from '../../lab/report/model.ts';
import { runInMemory } from './run-fixture.ts';

export interface Host {
  name: string;
  profile: string;
}

/** overlay2 on XFS and devicemapper: labs/seeds.yaml's two hosts. */
export const SEED_HOSTS: readonly Host[] = [
  { name: 'xfs', profile: 'overlay2-xfs' },
  { name: 'dm', profile: 'devicemapper-lvm' },
];

/** Five repetitions with ±2% jitter around `base`. */
export const reps = (base: number, n = 5) =>
  [0.98, 1.0, 1.02, 0.99, 1.01, 0.985, 1.015].slice(0, n).map((f) => base * f);

/** One sample of `host` (its profile from `hosts`). */
export function sample(
  hosts: readonly Host[],
  host: string,
  scenario: string,
  mount: string,
  rep: number,
  metric: string,
  value: number,
  labels: Record<string, string | number>,
): Sample {
  return {
    run: 'r',
    host,
    profile: hosts.find((h) => h.name === host)?.profile ?? '',
    scenario,
    mount,
    rep,
    trial: `r${rep}-${host}-${scenario}-${mount}`,
    metric,
    value,
    unit: 'x',
    timestamp: '',
    ...labels,
  } as Sample;
}

/** Samples of one cell, one per value, repetitions 1, 2, … */
export const cell = (
  hosts: readonly Host[],
  host: string,
  scenario: string,
  mount: string,
  metric: string,
  values: readonly number[],
  labels: Record<string, string | number>,
) => values.map((v, i) => sample(hosts, host, scenario, mount, i + 1, metric, v, labels));

/** Every seed claim the report gives a run of these samples. */
export function claimsOf(
  samples: Sample[],
  hosts: readonly Host[] = SEED_HOSTS,
  mounts: readonly string[] = ['layer', 'volume', 'bind', 'hostshare', 'hostshare-nfs', 'hostshare-9p'],
): ClaimAnswer[] {
  const run = runInMemory(samples, { hosts: [...hosts], mounts });
  return answerClaims({ analysis: analyzeRun(run), lab: recordedLab(run) });
}

/** The claim whose text starts with `start`, or undefined when the report leaves it out. */
export function claimOf(answers: readonly ClaimAnswer[], start: string): ClaimAnswer | undefined {
  return answers.find((a) => a.claim.startsWith(start));
}
