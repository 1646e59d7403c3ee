import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { analyzeRun } from '../analyze/analysis.js';
import { parseTrialOutput } from '../collect/trial-output.js';
import { History } from '../history/history.js';
import type { Plan } from '../plan/plan.js';
import { runFiles } from '../record/layout.js';
import { loadRun } from '../record/load.js';
import { type Sample, writeSamples } from '../record/samples.js';
import { samplesCsv } from '../report/csv.js';
import { renderHtml } from '../report/html.js';
import { renderMarkdown } from '../report/markdown.js';
import { writeFileAtomic } from '../util/files.js';

/**
 * Rebuilds a run's derived files from its raw trial folders: the parsers run
 * again (an improved parser re-reads old runs), then samples.ndjson,
 * samples.csv, report.md and report.html are rewritten atomically and the
 * run's rows in results/history.sqlite replaced. Raw files are never touched.
 */
export async function report(runDir: string): Promise<string> {
  const files = runFiles(runDir);
  const runId = basename(runDir);
  const plan = JSON.parse(readFileSync(files.plan, 'utf8')) as Plan;
  const samples: Sample[] = [];
  const reparseFailures = new Map<string, { host: string; reason: string }>();
  for (const trial of plan.trials) {
    const dir = files.trialDir(trial.id);
    if (!existsSync(dir)) continue;
    const outcome = parseTrialOutput(dir, trial, runId);
    samples.push(...outcome.samples);
    if (!outcome.ok) reparseFailures.set(trial.id, { host: trial.host, reason: outcome.failures.join('; ') });
  }
  await writeSamples(files.samples, samples);
  await writeFileAtomic(files.csv, samplesCsv(samples));
  const run = loadRun(runDir, reparseFailures);
  const analysis = analyzeRun(run);
  const markdown = renderMarkdown(run, analysis);
  await writeFileAtomic(files.report, markdown);
  await writeFileAtomic(files.html, await renderHtml(run, analysis, markdown));
  const history = History.forResults(dirname(runDir));
  try {
    history.record(run);
  } finally {
    history.close();
  }
  return files.report;
}
