import type { ScenarioAnalysis } from '../analyze/analysis.js';
import type { ComparisonRow } from '../analyze/comparison-rows.js';
import { describe } from '../analyze/stats.js';
import { ALPHA, MIN_RUNS } from '../analyze/verdict.js';
import type { LabDefinition } from '../definition/schema.js';
import { Journal } from '../record/journal.js';
import type { LoadedRun } from '../record/load.js';
import type { RunSummary } from '../run/runner.js';
import type { StopReason } from '../run/stop-rule.js';
import { SCENARIOS } from '../scenarios/index.js';
import { formatBytes } from '../util/size.js';
import { formatDuration } from '../util/time.js';
import { answerClaims, calibrationRows, calibrationSection, claimsSection } from './claims.js';
import { fmt, groupBy, md } from './format.js';
import { scenarioSection } from './sections.js';

function comparisonSection(rows: readonly ComparisonRow[]): string[] {
  if (!rows.length) return [];
  const count = (v: string) => rows.filter((r) => r.result.verdict === v).length;
  const differences = count('a-better') + count('b-better');
  const family = rows.find((r) => r.result.family !== undefined)?.result.family ?? 0;
  const out = [
    '### Comparisons',
    '',
    `Typical ratio A/B (Hodges–Lehmann, on the log scale) with its 95% distribution-free interval, and the exact rank-sum test's p. A difference is claimed only when q — p adjusted over the report's ${family} testable comparisons (Benjamini–Hochberg) — is at most ${ALPHA}: on average at most 1 in 20 claimed differences is a fluke. Fewer than ${MIN_RUNS} runs per side cannot show a difference at 95% and are not tested. Mount kinds are compared on the same host, hosts (profiles) on the same mount kind.`,
    '',
    `${rows.length} comparisons: **${differences} consistent difference(s)**, ${count('no-difference')} with no consistent difference, ${count('not-enough-runs')} with too few runs to show one${count('undefined') ? `, ${count('undefined')} undefined` : ''}.`,
    '',
    '| within | series | metric | A vs B | n | verdict | detectable at this n |',
    '|---|---|---|---|---|---|---:|',
  ];
  for (const r of rows) {
    const mde = r.result.minDetectable === undefined ? '–' : `±${(r.result.minDetectable * 100).toFixed(0)}%`;
    out.push(
      `| ${r.axis === 'mount' ? `host ${r.within}` : `mount ${r.within}`} | ${r.series} | ${r.metric.name} (${r.metric.better} is better) | ${r.a} vs ${r.b} | ${r.result.nA}/${r.result.nB} | ${r.result.text} | ${mde} |`,
    );
  }
  out.push('');
  return out;
}

/**
 * Load and steal per host. A trial is flagged busy when the 1-minute load
 * before it was at or above the host's CPU count: something else was running
 * (trials run back to back, so part of that load is the previous trial's tail).
 */
function noiseSection(run: LoadedRun): string[] {
  if (!run.noise.length) return [];
  const out = [
    '## Noise',
    '',
    "Load average (1 min) before each trial and CPU steal during it, from `/proc` on the host. A trial is flagged busy when the load before it reached the host's CPU count.",
    '',
    '| host | trials | load before: median (max) | steal s: total (max) | busy trials |',
    '|---|---:|---|---|---|',
  ];
  for (const [host, trials] of groupBy(run.noise, (n) => n.host)) {
    const cpus = Number(run.env.get(host)?.cpus) || 1;
    const load = describe(trials.map((t) => t.load1Before));
    const steal = trials.map((t) => t.stealSeconds);
    const busy = trials.filter((t) => t.load1Before >= cpus).map((t) => t.trial);
    out.push(
      `| ${host} | ${trials.length} | ${fmt(load.median)} (${fmt(load.max)}) | ${fmt(steal.reduce((a, b) => a + b, 0))} (${fmt(Math.max(...steal))}) | ${busy.length ? busy.join(', ') : 'none'} |`,
    );
  }
  out.push('');
  return out;
}

function envSection(run: LoadedRun): string[] {
  const out = [
    '## Hosts',
    '',
    '| host | kernel | docker | storage driver | /var/lib/docker on | data disk | CPUs | memory | load at start |',
  ];
  out.push('|---|---|---|---|---|---|---:|---:|---|');
  for (const [host, env] of run.env) {
    if (env.unreadable) {
      out.push(`| ${host} | unreadable: ${env.unreadable} | | | | | | | |`);
      continue;
    }
    const root = [env.docker_root_fstype, env.docker_root_source].filter(Boolean).join(' ');
    const driver = [env.storage_driver, env.backing_fs ? `on ${env.backing_fs}` : ''].filter(Boolean).join(' ');
    out.push(
      `| ${host} | ${env.kernel} | ${env.docker_version} | ${driver} | ${root} | ${env.data_disk} ${formatBytes(Number(env.data_disk_bytes))} | ${env.cpus} | ${formatBytes(Number(env.mem_bytes))} | ${env.loadavg?.split(' ').slice(0, 3).join(' ')} |`,
    );
  }
  out.push(
    '',
    'Mount options and the raw `docker info`, `xfs_info`, `lvs` and `df` output are in `hosts/<host>/env/`.',
    '',
  );
  return out;
}

const STOP_TEXT: Record<StopReason, string> = {
  'fixed-count': 'the fixed count',
  'target-ci-width': 'the target interval width was reached',
  'max-repetitions': 'the maximum repetitions were reached before the target interval width',
  budget: 'the time budget',
  interrupted: 'an interruption',
};

/** "3 repetition(s)", or the stop rule and what ended the run. */
function repetitionsText(r: LabDefinition['repetitions'] | number, summary: RunSummary | undefined): string {
  if (typeof r === 'number' || (r.min === r.max && r.targetCiWidth === undefined && r.budgetMinutes === undefined)) {
    return `${typeof r === 'number' ? r : r.max} repetition(s)`;
  }
  const rule = [
    `${r.min}–${r.max} repetitions`,
    r.targetCiWidth !== undefined ? `target interval width ${r.targetCiWidth}` : '',
    r.budgetMinutes !== undefined ? `budget ${r.budgetMinutes} min` : '',
  ]
    .filter(Boolean)
    .join(', ');
  if (!summary) return `stop rule (${rule})`;
  const widest = summary.widestInterval !== undefined ? `; widest interval ${fmt(summary.widestInterval)}` : '';
  return `stop rule (${rule}): ran ${summary.repetitions}, ended by ${summary.stoppedBy ? STOP_TEXT[summary.stoppedBy] : '?'}${widest}`;
}

/** The run's report.md: per host and mount kind, medians with ranges, and the hosts' environment. */
export function renderMarkdown(run: LoadedRun, analysis: readonly ScenarioAnalysis[]): string {
  const m = run.manifest as Record<string, unknown> & { lab: Record<string, unknown> };
  const states = Journal.finalStates(run.journal);
  const failed = [...states.values()].filter((e) => e.state === 'failed');
  const done = [...states.values()].filter((e) => e.state === 'done');
  const inventory = m.inventory as { target?: string } | undefined;
  const out: string[] = [
    `# layerlab report: ${m.lab.name}`,
    '',
    `Run \`${m.runId}\` · target \`${inventory?.target ?? '?'}\` · ${repetitionsText(m.lab.repetitions as LabDefinition['repetitions'], run.summary)} · trial order seed ${(m.plan as { seed?: number } | undefined)?.seed ?? m.lab.seed} (${(m.plan as { mode?: string } | undefined)?.mode ?? ''}) · git ${m.gitRevision ?? 'unknown'}`,
    '',
    `Trials: ${done.length} done, ${failed.length} failed${run.summary ? `, wall time ${formatDuration(run.summary.wallSeconds * 1000)}` : ''}${run.summary?.stoppedBy === 'interrupted' ? ' — **interrupted**' : ''}.`,
    '',
    'Each cell is the **median (min–max)** over repetitions; n counts the trials that produced the value.',
    'Under QEMU TCG the absolute numbers measure the emulated CPU as much as the disk: compare columns, not machines.',
    '',
  ];
  out.push(...claimsSection(answerClaims(run, analysis)));
  out.push(...calibrationSection(calibrationRows(run, analysis)));
  for (const { name, samples, comparisons } of analysis) {
    out.push(`## ${SCENARIOS[name]?.summary ?? name}`, '');
    out.push(...scenarioSection(name, run, samples));
    out.push(...comparisonSection(comparisons));
  }
  if (!run.samples.length) out.push('No samples were collected.', '');
  if (failed.length) {
    out.push('## Failed trials', '', '| trial | host | reason |', '|---|---|---|');
    for (const f of failed) out.push(`| ${f.trial} | ${f.host} | ${md(f.reason ?? '')} |`);
    out.push('');
  }
  out.push(...noiseSection(run));
  out.push(...envSection(run));
  out.push(
    '## Files',
    '',
    '`manifest.json` (lab, inventory, versions) · `plan.json` (trial order) · `journal.ndjson` (trial states) · `samples.ndjson` (one value per line) · `trials/<id>/` (raw output + meta.json) · `hosts/<host>/env/`',
    '',
  );
  return out.join('\n');
}
