import { basename } from 'node:path';
import { analyzeRun } from '../analyze/analysis.js';
import { type ComparisonRow, controlFamily } from '../analyze/comparison-rows.js';
import { ALPHA, MIN_RUNS } from '../analyze/verdict.js';
import { type LabDefinition, labSchema } from '../definition/schema.js';
import { upRunDown } from '../phases/lifecycle.js';
import { writeSelftestReport } from '../record/derived.js';
import { loadRun } from '../record/load.js';
import { type LabCliOptions, lockLab, requireLab } from './context.js';
import { installInterruptHandler } from './interrupt.js';

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

/**
 * The comparisons that rest on one set of trials: host a vs host b for one
 * scenario on one mount kind. Its metrics (every fio job's bandwidth and
 * latency) come from the same trials and move together, so the family — not
 * the single row — is the unit that is or is not a false positive.
 */
export interface TrialFamily {
  scenario: string;
  mount: string;
  rows: ScenarioRow[];
  claimed: ScenarioRow[];
}

export interface AaVerdict {
  /** Trial families with at least one comparison that could show a difference. */
  compared: number;
  /** Families in which the report claimed at least one difference. */
  claimed: TrialFamily[];
  /** Families whose every comparison had too few runs to show anything. */
  notEnough: number;
  rate: number;
  interval: { lo: number; hi: number };
  /** The rate is above the calibrated level with 95% confidence: the lab's noise is larger than its tests admit. */
  tooNoisy: boolean;
}

const isClaim = (r: ComparisonRow) => r.result.verdict === 'a-better' || r.result.verdict === 'b-better';
const isDecided = (r: ComparisonRow) => isClaim(r) || r.result.verdict === 'no-difference';

/**
 * Host-vs-host comparisons of identical hosts, counted per trial family:
 * every family with a claimed difference is a false positive. Controlled
 * together (Benjamini–Hochberg over the host-vs-host rows alone, all of them
 * null), a calibrated pipeline claims anything at all in at most ALPHA of
 * runs, so in at most ALPHA of families. Families share the two hosts, so
 * the Wilson interval (which takes them as independent) is narrower than
 * the truth.
 */
export function aaVerdict(rows: readonly ScenarioRow[]): AaVerdict {
  const families = new Map<string, TrialFamily>();
  for (const r of rows.filter((row) => row.axis === 'profile')) {
    const key = `${r.scenario}\0${r.within}`;
    const family = families.get(key) ?? { scenario: r.scenario, mount: r.within, rows: [], claimed: [] };
    family.rows.push(r);
    if (isClaim(r)) family.claimed.push(r);
    families.set(key, family);
  }
  const all = [...families.values()];
  const decided = all.filter((f) => f.rows.some(isDecided));
  const claimed = decided.filter((f) => f.claimed.length > 0);
  const interval = wilson(claimed.length, decided.length);
  return {
    compared: decided.length,
    claimed,
    notEnough: all.length - decided.length,
    rate: decided.length ? claimed.length / decided.length : 0,
    interval,
    tooNoisy: decided.length > 0 && interval.lo > ALPHA,
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function formatAaVerdict(runId: string, v: AaVerdict): string {
  const lines = [
    `# A/A self-check: ${runId}`,
    '',
    'Two identical hosts ran the same trials in the same randomized, interleaved order. Every',
    'difference the report claims between them is a false positive. Counted per trial family',
    '(one scenario on one mount kind: its metrics come from the same trials and move together).',
    '',
    `- trial families with enough runs: ${v.compared}`,
    `- with a claimed difference: ${v.claimed.length} (${pct(v.rate)}, 95% Wilson interval ${pct(v.interval.lo)}–${pct(v.interval.hi)}); calibrated level: at most ${pct(ALPHA)}`,
    `- with too few runs to show anything (${MIN_RUNS} per side can): ${v.notEnough}`,
    '',
    v.tooNoisy
      ? '**Higher than the calibrated level**: this lab claims differences between identical hosts more often than its tests allow. Treat single verdicts from it with suspicion; reduce noise (trials: serial, a quieter machine) or look for a difference between the hosts themselves.'
      : v.compared
        ? 'Consistent with the calibrated level: the verdicts are as honest as they claim on this lab.'
        : `No trial family had enough runs (${MIN_RUNS} per side): raise repetitions.`,
  ];
  if (v.claimed.length) {
    lines.push('', '| scenario | mount | series | metric | verdict |', '|---|---|---|---|---|');
    for (const f of v.claimed) {
      for (const r of f.claimed)
        lines.push(`| ${r.scenario} | ${r.within} | ${r.series} | ${r.metric.name} | ${r.result.text} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Writes selftest.md into the A/A run's folder. */
export async function writeSelftest(runDir: string): Promise<AaVerdict & { path: string; summary: string }> {
  const run = loadRun(runDir);
  const rows = analyzeRun(run).flatMap((s) => s.comparisons.map((c) => ({ ...c, scenario: s.name })));
  // The host-vs-host rows are the A/A family, every one of them null; the mount rows are not (layer and
  // volume really differ) and would loosen the control of the null ones. So they are controlled alone.
  const verdict = aaVerdict(controlFamily(rows.filter((r) => r.axis === 'profile')));
  const path = await writeSelftestReport(runDir, formatAaVerdict(basename(runDir), verdict));
  const summary = `A/A: ${verdict.claimed.length} of ${verdict.compared} trial families of identical hosts claimed a difference (${pct(verdict.rate)}; calibrated level at most ${pct(ALPHA)})`;
  return { ...verdict, path, summary };
}

/**
 * `layerlab selftest --lab <file>`: the A/A lab up, run, reported and down,
 * then selftest.md; exit 1 when the run failed or the lab is too noisy.
 */
export async function selftestCommand(opts: LabCliOptions & { keep?: boolean }): Promise<void> {
  const loaded = await requireLab(opts);
  const aa = { ...loaded, lab: aaLab(loaded.lab) };
  lockLab(aa.lab.name);
  const controller = installInterruptHandler(aa);
  const result = await upRunDown(aa, { keep: opts.keep, signal: controller.signal });
  if (!result.runDir) {
    process.exitCode = 1;
    return;
  }
  const verdict = await writeSelftest(result.runDir);
  process.stdout.write(`${verdict.summary}\nselftest: ${verdict.path}\n`);
  if (result.failed || verdict.tooNoisy) process.exitCode = 1;
}
