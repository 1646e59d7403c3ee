import { writeDerivedFile } from '../record/derived.js';
import { buildExportModel } from '../report/build.js';
import type { Exporter } from '../report/exporter.js';
import { DEFAULT_EXPORTERS } from '../report/exporters.js';
import type { Analyzed } from './analyze.js';

/**
 * Writes an analyzed run's report files, one per exporter (default: report.md,
 * report.html, samples.csv), all rendered from one export model; returns the
 * path of the first (report.md by default).
 */
export async function report(analyzed: Analyzed, exporters: readonly Exporter[] = DEFAULT_EXPORTERS): Promise<string> {
  const model = buildExportModel(analyzed.run, analyzed.analysis);
  const paths: string[] = [];
  for (const exporter of exporters) {
    paths.push(await writeDerivedFile(analyzed.run.dir, exporter.fileName, await exporter.render(model)));
  }
  return paths[0] ?? analyzed.run.dir;
}
