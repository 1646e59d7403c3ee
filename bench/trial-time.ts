/**
 * Per scenario of a run: trial wall / timed work, and where the rest went
 * (the parts of the report's "Where the trial time went"), from the run
 * folder's journal. Issue 38's target: fio at most 1.5 at labs/quick.yaml's sizes.
 * Usage: npm run bench:trial-time -- results/<run-id>
 * (bench:fast-lab prints the same for its demo run.)
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { accountRunTime } from '../lab/analyze/analysis.ts';
import { TIME_PARTS } from '../lab/analyze/trial-time.ts';
import { errorMessage } from '../lab/errors.ts';
import { loadRun } from '../lab/record/load.ts';
import { visible } from '../lab/util/safe-text.ts';

/** One line per scenario: "<scenario>  <trials>  wall <s>/trial  timed <s>/trial  wall / timed work <ratio>", then its parts. */
export function trialTimeLines(runDir: string): string[] {
  const rows = accountRunTime(loadRun(runDir));
  const lines: string[] = [];
  for (const row of rows) {
    const name = visible(row.scenario);
    if (!row.trials) {
      lines.push(
        `${name.padEnd(12)} ${String(row.unitemised).padStart(4)} trial(s) without phases (a run before they were kept)`,
      );
      continue;
    }
    const perTrial = (seconds: number) => (seconds / row.trials).toFixed(2);
    const ratio = row.ratio === undefined ? '–' : row.ratio.toFixed(2);
    const without = row.unitemised ? ` (${row.unitemised} more without phases)` : '';
    lines.push(
      `${name.padEnd(12)} ${String(row.trials).padStart(4)} trial(s)  wall ${perTrial(row.wallSeconds)} s  timed work ${perTrial(row.parts.timed)} s  trial wall / timed work ${ratio}${without}`,
    );
    lines.push(`${''.padEnd(12)}   ${TIME_PARTS.map((p) => `${p.label} ${perTrial(row.parts[p.key])}`).join(' · ')}`);
  }
  return lines;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: npm run bench:trial-time -- <run folder> (results/<run-id>)');
    process.exit(2);
  }
  let lines: string[];
  try {
    lines = trialTimeLines(resolve(dir));
  } catch (err) {
    console.error(`bench:trial-time: ${errorMessage(err)}`);
    process.exit(2);
  }
  console.log(`trial wall / timed work per scenario (s per trial): ${dir}`);
  for (const line of lines.length ? lines : ['no done trials']) console.log(line);
}
