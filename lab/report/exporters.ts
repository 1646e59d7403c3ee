import { UserError } from '../errors.js';
import { benchmarkEntries } from '../history/benchmark-export.js';
import { samplesCsv } from './csv.js';
import type { ExportModel, Exporter } from './exporter.js';
import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderMarkdown } from './markdown.js';

/** The benchmark files read a metric's unit and direction from the model's scenarios (as the run's version declares them). */
function benchmarkOf(model: ExportModel) {
  const metrics = new Map(model.scenarios.map((s) => [s.name, s.metrics]));
  const samples = model.analysis.flatMap((a) => a.samples);
  return benchmarkEntries(samples, model.runId, (scenario, metric) =>
    metrics.get(scenario)?.find((m) => m.name === metric),
  );
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/**
 * Every output format of `layerlab report`, in the order they are written.
 * Adding one = a renderer of the export model + a line here.
 */
export const EXPORTERS: readonly Exporter[] = [
  {
    name: 'markdown',
    fileName: 'report.md',
    description: 'the report as GitHub-flavoured Markdown (fits a CI job summary)',
    byDefault: true,
    render: (model) => renderMarkdown(model.report),
  },
  {
    name: 'html',
    fileName: 'report.html',
    description: 'the report as one self-contained HTML page with its plots',
    byDefault: true,
    render: (model) => renderHtml(model.report),
  },
  {
    name: 'csv',
    fileName: 'samples.csv',
    description: 'every sample, one a row, for a spreadsheet',
    byDefault: true,
    render: (model) => samplesCsv(model.analysis.flatMap((a) => a.samples)),
  },
  {
    name: 'json',
    fileName: 'report.json',
    description: 'the analysis and report model (lab/report/report.schema.json)',
    byDefault: false,
    render: renderJson,
  },
  {
    name: 'bigger-is-better',
    fileName: 'bigger-is-better.json',
    description: "headline metrics where higher is better, in github-action-benchmark's customBiggerIsBetter format",
    byDefault: false,
    render: (model) => json(benchmarkOf(model).bigger),
  },
  {
    name: 'smaller-is-better',
    fileName: 'smaller-is-better.json',
    description: "headline metrics where lower is better, in github-action-benchmark's customSmallerIsBetter format",
    byDefault: false,
    render: (model) => json(benchmarkOf(model).smaller),
  },
];

export const DEFAULT_EXPORTERS = EXPORTERS.filter((e) => e.byDefault);

/** The exporters a `--format` list names ("markdown,json"), in its order; an unknown name is a user error. */
export function exportersNamed(list: string): Exporter[] {
  const names = list
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !EXPORTERS.some((e) => e.name === n));
  if (!names.length || unknown.length) {
    throw new UserError(
      `--format ${JSON.stringify(list)}: ${unknown.length ? `unknown format(s) ${unknown.join(', ')}` : 'no format named'}; formats: ${EXPORTERS.map((e) => e.name).join(', ')}`,
    );
  }
  return [...new Set(names)].map((n) => EXPORTERS.find((e) => e.name === n) as Exporter);
}
