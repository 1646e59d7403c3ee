import { basename, join } from 'node:path';
import { analyzeRun } from '../analyze/analysis.js';
import type { ComparisonRow } from '../analyze/comparisons.js';
import { type LabDefinition, labSchema } from '../definition/schema.js';
import { loadRun } from '../report/load-run.js';
import { writeFileAtomic } from '../util/files.js';

/** The nominal false-positive rate of a 95% interval. */
const NOMINAL = 0.05;

/**
 * The A/A lab: the lab's first host twice (hosts `a` and `b`, identical),
 * with the same scenarios, mounts, repetitions and seed.
 */
export function aaLab(lab: LabDefinition): LabDefinition {
  const first = lab.hosts[0];
  if (!first) throw new Error('a lab has at least one host');
  return labSchema.parse({
    ...lab,
    name: `${lab.name.slice(0, 28)}-aa`,
    description: `A/A self-check of ${lab.name}: host ${first.name} (${first.profile}) twice`,
    hosts: [
      { ...first, name: 'a' },
      { ...first, name: 'b' },
    ],
  });
}

/** Wilson score interval of a proportion (95%). */
export function wilson(successes: number, n: number): { lo: number; hi: number } {
  if (n === 0) return { lo: 0, hi: 1 };
  const z = 1.959964;
  const p = successes / n;
  const denom = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denom;
  return { lo: Math.max(0, centre - half), hi: Math.min(1, centre + half) };
}

/** A comparison row and the scenario it belongs to. */
export type ScenarioRow = ComparisonRow & { scenario: string };

export interface AaVerdict {
  compared: number;
  claimed: ScenarioRow[];
  notEnough: number;
  rate: number;
  interval: { lo: number; hi: number };
  /** The rate is above nominal with 95% confidence: the lab's noise is larger than its intervals admit. */
  tooNoisy: boolean;
}

/** Host-vs-host comparisons of identical hosts: every claimed difference is a false positive. */
export function aaVerdict(rows: readonly ScenarioRow[]): AaVerdict {
  const hostRows = rows.filter((r) => r.axis === 'profile');
  const decided = hostRows.filter((r) => ['a-better', 'b-better', 'no-difference'].includes(r.result.verdict));
  const claimed = decided.filter((r) => r.result.verdict !== 'no-difference');
  const interval = wilson(claimed.length, decided.length);
  return {
    compared: decided.length,
    claimed,
    notEnough: hostRows.length - decided.length,
    rate: decided.length ? claimed.length / decided.length : 0,
    interval,
    tooNoisy: decided.length > 0 && interval.lo > NOMINAL,
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function formatAaVerdict(runId: string, v: AaVerdict): string {
  const lines = [
    `# A/A self-check: ${runId}`,
    '',
    'Two identical hosts ran the same trials in the same randomized, interleaved order. Every',
    'difference the verdict logic claims between them is a false positive.',
    '',
    `- host-vs-host comparisons with enough runs: ${v.compared}`,
    `- claimed a difference: ${v.claimed.length} (${pct(v.rate)}, 95% CI ${pct(v.interval.lo)}–${pct(v.interval.hi)}); nominal: ${pct(NOMINAL)}`,
    `- not enough runs: ${v.notEnough}`,
    '',
    v.tooNoisy
      ? '**Higher than nominal**: this lab claims differences between identical hosts more often than its 95% intervals promise. Treat single verdicts from it with suspicion; add repetitions or reduce noise (trials: serial, a quieter machine).'
      : v.compared
        ? 'Consistent with the nominal rate: the intervals are as honest as they claim on this lab.'
        : 'No comparison had enough runs (at least 3 per side): raise repetitions.',
    '',
    'Metrics of one trial (bandwidth and IOPS of one fio job) move together, so the comparisons',
    'are not independent; the interval above assumes they are and is narrower than the truth.',
  ];
  if (v.claimed.length) {
    lines.push('', '| scenario | mount | series | metric | verdict |', '|---|---|---|---|---|');
    for (const r of v.claimed) {
      lines.push(`| ${r.scenario} | ${r.within} | ${r.series} | ${r.metric.name} | ${r.result.text} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Writes selftest.md into the A/A run's folder. */
export async function writeSelftest(runDir: string): Promise<AaVerdict & { path: string; summary: string }> {
  const run = loadRun(runDir);
  const rows = analyzeRun(run).flatMap((s) => s.comparisons.map((c) => ({ ...c, scenario: s.name })));
  const verdict = aaVerdict(rows);
  const path = join(runDir, 'selftest.md');
  const runId = basename(runDir);
  await writeFileAtomic(path, formatAaVerdict(runId, verdict));
  const summary = `A/A: ${verdict.claimed.length} of ${verdict.compared} comparisons of identical hosts claimed a difference (${pct(verdict.rate)}; nominal ${pct(NOMINAL)})`;
  return { ...verdict, path, summary };
}
