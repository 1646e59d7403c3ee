import { writeReportFiles } from '../record/derived.js';
import { buildReport } from '../report/build.js';
import { renderHtml } from '../report/html.js';
import { renderMarkdown } from '../report/markdown.js';
import type { Analyzed } from './analyze.js';

/** The one place the report renderers are called: a change of their signatures touches only this. */
async function renderReport({ run, analysis }: Analyzed): Promise<{ markdown: string; html: string }> {
  const model = buildReport(run, analysis);
  return { markdown: renderMarkdown(model), html: await renderHtml(model) };
}

/** Writes report.md and report.html of an analyzed run; returns report.md's path. */
export async function report(analyzed: Analyzed): Promise<string> {
  return writeReportFiles(analyzed.run.dir, await renderReport(analyzed));
}
