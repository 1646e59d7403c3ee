import { accountRunTime } from '../analyze/analysis.js';
import type { ScenarioAnalysis } from '../analyze/types.js';
import type { LabDefinition } from '../definition/schema.js';
import { Journal } from '../record/journal.js';
import { type LoadedRun, type RecordedLab, recordedLab } from '../record/load.js';
import { getScenario } from '../scenarios/index.js';
import type { MetricSpec } from '../scenarios/metric.js';
import { formatDuration } from '../util/time.js';
import { answerClaims, calibrationRows, calibrationSection, claimsSection } from './claims.js';
import { environmentSection } from './environment.js';
import { EXPORT_SCHEMA_VERSION, type ExportModel } from './exporter.js';
import { scenarioFigures } from './figures.js';
import { fmt } from './format.js';
import { matrixBlock, matrixLegend } from './glance.js';
import { type Report, type Section, bold, code, inline, paragraph, plain, prose } from './model.js';
import { orderEffectsSection } from './order-effects.js';
import { FILES_SECTION, comparisonSection, failedTrialsSection, noiseSection } from './run-sections.js';
import { trialTimeSection } from './trial-time.js';
import { unknownScenarioSection } from './unknown-scenario.js';

type RunSummary = NonNullable<LoadedRun['summary']>;

const STOP_TEXT: Record<NonNullable<RunSummary['stoppedBy']>, string> = {
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

/** What ran: run, target, repetitions, trial order, git; trials done and failed; how to read the tables. */
function runSection(run: LoadedRun): Section {
  // Fields older runs may lack read as "?" or "undefined", as they always have.
  const m = run.manifest as Record<string, unknown> & { lab: Record<string, unknown> };
  const plan = m.plan as { seed?: number; mode?: string } | undefined;
  const target = (m.inventory as { target?: string } | undefined)?.target ?? '?';
  const capped = Object.entries(recordedLab(run).scenarioRepetitions).map(([name, n]) => `${name} ${n}`);
  const repetitions =
    repetitionsText(m.lab.repetitions as LabDefinition['repetitions'], run.summary) +
    (capped.length ? ` (fewer for ${capped.join(', ')})` : '');
  const states = [...Journal.finalStates(run.journal).values()];
  const count = (state: string) => states.filter((e) => e.state === state).length;
  const wall = run.summary ? `, wall time ${formatDuration(run.summary.wallSeconds * 1000)}` : '';
  return {
    level: 2,
    title: plain('Run'),
    blocks: [
      paragraph(
        inline`Run ${code(String(m.runId))} · target ${code(target)} · ${repetitions} · trial order seed ${String(plan?.seed ?? m.lab.seed)} (${plan?.mode ?? ''}) · git ${String(m.gitRevision ?? 'unknown')}`,
      ),
      paragraph(
        inline`Trials: ${count('done')} done, ${count('failed')} failed${wall}${run.summary?.stoppedBy === 'interrupted' ? inline` — ${bold('interrupted')}` : ''}.`,
      ),
      paragraph(
        prose('Each cell is the **median (min–max)** over repetitions; n counts the trials that produced the value.'),
        prose(
          'Under QEMU TCG the absolute numbers measure the emulated CPU as much as the disk: compare columns, not machines.',
        ),
      ),
      ...(run.samples.length ? [] : [paragraph(prose('No samples were collected.'))]),
    ],
  };
}

/** A scenario's sections: its heading, lead and plots, its tables per host, its comparisons. */
function scenarioSections(scenario: ScenarioAnalysis, run: LoadedRun): Section[] {
  const lab = recordedLab(run);
  const { name, samples, comparisons } = scenario;
  // A scenario this version no longer knows (an old run) gets its heading, its samples as recorded and comparisons.
  const registered = getScenario(name);
  const own = registered?.report.section({ lab, samples, comparisons }) ?? unknownScenarioSection(name, lab, samples);
  const heading: Section = {
    level: 2,
    title: plain(registered?.summary ?? name),
    blocks: [
      ...own.blocks,
      ...(registered ? scenarioFigures(registered, scenario, lab.mounts, lab.hosts[0]?.name) : []),
    ],
  };
  const compared = comparisonSection(comparisons, name);
  return [heading, ...own.sections, ...(compared ? [compared] : [])];
}

/** The scenario's metric in the matrix (Scenario.matrixMetric), if this version knows the scenario. */
function matrixMetric(name: string): MetricSpec | undefined {
  const scenario = getScenario(name);
  return scenario?.metrics.find((m) => m.name === scenario.matrixMetric);
}

/** The report's heading, then the matrix of setups against workloads and how to read it. */
function glanceSection(lab: RecordedLab, analysis: readonly ScenarioAnalysis[]): Section {
  const matrix = matrixBlock(analysis, lab, matrixMetric);
  return {
    level: 1,
    title: plain(`layerlab report: ${lab.name}`),
    blocks: matrix ? [matrix, paragraph(matrixLegend(matrix))] : [],
  };
}

/**
 * The report of a run, built once from the run and its analysis. First what
 * a reader needs at a glance: the matrix of setups against workloads, the
 * seed claims, the hosts side by side; then the details: what ran and
 * where its trials' time went, the calibration check, the order effects, a section per scenario, failed
 * trials, noise and files. report.md and report.html render it.
 */
export function buildReport(run: LoadedRun, analysis: readonly ScenarioAnalysis[]): Report {
  const lab = recordedLab(run);
  const failed = [...Journal.finalStates(run.journal).values()].filter((e) => e.state === 'failed');
  const sections = [
    glanceSection(lab, analysis),
    claimsSection(answerClaims({ analysis, lab })),
    environmentSection(lab, run.env),
    runSection(run),
    trialTimeSection(accountRunTime(run)),
    calibrationSection(calibrationRows({ analysis, lab })),
    orderEffectsSection(analysis),
    ...analysis.flatMap((scenario) => scenarioSections(scenario, run)),
    failedTrialsSection(failed),
    noiseSection(run),
    FILES_SECTION,
  ];
  return { title: `layerlab report: ${lab.name}`, sections: sections.filter((s) => s !== undefined) };
}

/**
 * What every exporter renders (lab/report/exporters.ts): the run's analysis,
 * its report model and the scenarios as this version knows them, built once.
 */
export function buildExportModel(run: LoadedRun, analysis: readonly ScenarioAnalysis[]): ExportModel {
  return {
    schemaVersion: EXPORT_SCHEMA_VERSION,
    runId: String(run.manifest.runId),
    lab: recordedLab(run),
    scenarios: analysis.map(({ name }) => {
      const scenario = getScenario(name);
      return scenario
        ? { name, known: true, summary: scenario.summary, metrics: scenario.metrics }
        : { name, known: false, metrics: [] };
    }),
    analysis,
    report: buildReport(run, analysis),
  };
}
