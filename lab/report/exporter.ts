import { z } from 'zod';
import type { ScenarioAnalysis } from '../analyze/types.js';
import { CONTAINER_NETWORKS } from '../catalog.js';
import type { RecordedLab } from '../record/load.js';
import { sampleSchema } from '../record/schemas.js';
import type { MetricSpec } from '../scenarios/metric.js';
import { type JsonSchema, toJsonSchema } from '../util/zod-json-schema.js';
import type { Report } from './model.js';

/**
 * What every exporter renders from (report.md, report.html, samples.csv,
 * report.json, the benchmark files): the run's analysis and its report
 * model, built once. report.json is this model itself; its zod schema below
 * is published as lab/report/report.schema.json.
 */

/** report.json's format version: raise it when a field changes meaning or goes away (adding one does not). */
export const EXPORT_SCHEMA_VERSION = 1;

/** A scenario of the run as this version knows it; one renamed or removed since the run is `known: false`. */
export interface ExportScenario {
  name: string;
  known: boolean;
  /** Its heading in the report (known scenarios only). */
  summary?: string;
  /** Its metrics: names, units, which side is better (empty when unknown). */
  metrics: readonly MetricSpec[];
}

export interface ExportModel {
  schemaVersion: typeof EXPORT_SCHEMA_VERSION;
  runId: string;
  /** The lab as the run recorded it (the parts the report reads). */
  lab: RecordedLab;
  /** In report order: the catalog's order, then scenarios this version does not know. */
  scenarios: readonly ExportScenario[];
  /** Per scenario: its samples, its comparisons (verdicts controlled across the report's family) and drift checks. */
  analysis: readonly ScenarioAnalysis[];
  /** The report as data (what report.md and report.html render). */
  report: Report;
}

/** One output format of `layerlab report`: a file in the run folder rendered from the model. */
export interface Exporter {
  /** What `--format` calls it. */
  name: string;
  /** The file it writes in the run folder. */
  fileName: string;
  description: string;
  /** Written by `layerlab report` without --format (the files a report always had). */
  byDefault: boolean;
  /** The file's content; html is asynchronous (its plots are drawn by vega). */
  render(model: ExportModel): string | Buffer | Promise<string | Buffer>;
}

// The zod schema of the model, for the published JSON Schema. Numbers a
// statistic cannot bound (an interval's Infinity, a NaN) are null in JSON.
const num = z.number().nullable();
const run = z.object({ text: z.string(), code: z.literal(true).optional(), bold: z.literal(true).optional() }).strict();
const inline = z.array(run);
const seedSource = z
  .object({ seed: z.string(), line: z.number(), words: z.string(), gloss: z.string().optional() })
  .strict();
const metric = z
  .object({
    name: z.string(),
    unit: z.string(),
    better: z.enum(['higher', 'lower']),
    description: z.string(),
    compare: z.boolean().optional(),
  })
  .strict();
const matrixVerdict = z.enum([
  'better',
  'worse',
  'equivalent',
  'no-difference',
  'too-few-runs',
  'no-ratio',
  'baseline',
  'no-data',
]);
const block = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('paragraph'), lines: z.array(inline) }).strict(),
  z
    .object({
      kind: z.literal('table'),
      header: z.array(inline),
      align: z.array(z.enum(['left', 'right'])),
      rows: z.array(z.array(inline.nullable())),
      rowIds: z.array(z.string()).optional(),
    })
    .strict(),
  z
    .object({ kind: z.literal('list'), items: z.array(z.object({ text: inline, items: z.array(inline) }).strict()) })
    .strict(),
  z
    .object({
      kind: z.literal('figure'),
      caption: inline,
      spec: z.unknown().describe('The plot as a Vega-Lite specification (absent: no plot, the caption says why)'),
    })
    .strict(),
  z
    .object({
      kind: z.literal('matrix'),
      baseline: z.string(),
      columns: z.array(z.object({ scenario: z.string(), series: z.string(), mount: z.string(), metric }).strict()),
      rows: z.array(
        z
          .object({
            host: z.string(),
            profile: z.string(),
            cells: z.array(
              z
                .object({
                  verdict: matrixVerdict,
                  ratio: num.optional(),
                  lo: num.optional(),
                  hi: num.optional(),
                  median: num.optional(),
                  n: z.number(),
                  detail: z.string().optional(),
                })
                .strict(),
            ),
          })
          .strict(),
      ),
    })
    .strict(),
  z
    .object({
      kind: z.literal('claims'),
      answers: z.array(
        z
          .object({
            seed: z.string(),
            claim: z.string(),
            answer: z.enum(['confirmed', 'contradicted', 'not shown']),
            size: z.enum(['as the seed', 'contradicted', 'not shown']).optional(),
            evidence: z.array(z.string()),
            parameters: z
              .array(
                z
                  .object({
                    label: z.string(),
                    seed: z.string(),
                    run: z.string(),
                    same: z.boolean(),
                    source: seedSource,
                  })
                  .strict(),
              )
              .optional(),
          })
          .strict(),
      ),
    })
    .strict(),
]);
const comparison = z
  .object({
    nA: z.number(),
    nB: z.number(),
    ratio: num.optional(),
    lo: num.optional(),
    hi: num.optional(),
    lo90: num.optional(),
    hi90: num.optional(),
    p: num.optional(),
    aAbove: z.boolean().optional(),
    q: num.optional(),
    family: z.number().optional(),
    verdict: z.enum(['a-better', 'b-better', 'no-difference', 'not-enough-runs', 'undefined']),
    minDetectable: num.optional(),
    text: z.string(),
  })
  .strict();
const orderEffect = z
  .object({
    host: z.string(),
    mount: z.string(),
    series: z.string(),
    metric,
    n: z.number(),
    trials: z.number(),
    order: z.enum(['journal', 'repetition']),
    tau: num.optional(),
    p: num.optional(),
    q: num.optional(),
    family: z.number().optional(),
    verdict: z.enum(['drift', 'no-drift', 'too-few-trials']),
  })
  .strict()
  .describe("One cell's drift check: Kendall's tau of value against its trial's position in the run, p and q");

export const exportModelSchema = z
  .object({
    schemaVersion: z.literal(EXPORT_SCHEMA_VERSION),
    runId: z.string(),
    lab: z
      .object({
        name: z.string(),
        hosts: z.array(z.object({ name: z.string(), profile: z.string() }).passthrough()),
        mounts: z.array(z.string()),
        scenarioMounts: z.record(z.array(z.string()).optional()),
        equivalent: z.array(z.array(z.string())),
        scenarios: z.record(z.unknown()),
        repetitions: z.unknown(),
        scenarioRepetitions: z.record(z.number().optional()),
        containerNetwork: z
          .enum(CONTAINER_NETWORKS)
          .optional()
          .describe("how the run's target networked lifecycle's containers (lab/catalog.ts CONTAINER_NETWORK)"),
      })
      .strict(),
    scenarios: z.array(
      z
        .object({ name: z.string(), known: z.boolean(), summary: z.string().optional(), metrics: z.array(metric) })
        .strict(),
    ),
    analysis: z.array(
      z
        .object({
          name: z.string(),
          samples: z.array(sampleSchema),
          comparisons: z.array(
            z
              .object({
                axis: z.enum(['mount', 'profile', 'series']),
                within: z.string(),
                a: z.string(),
                b: z.string(),
                series: z.string(),
                metric,
                result: comparison,
              })
              .strict(),
          ),
          orderEffects: z.array(orderEffect),
        })
        .strict(),
    ),
    report: z
      .object({
        title: z.string(),
        sections: z.array(
          z
            .object({
              level: z.union([z.literal(1), z.literal(2), z.literal(3)]),
              title: inline,
              blocks: z.array(block),
            })
            .strict(),
        ),
      })
      .strict(),
  })
  .strict();

// The model in TypeScript fits the schema (checked by the compiler): a field
// added to the model and not to the schema fails here or in report.json's test.
type DeepReadonly<T> = T extends readonly (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;
type Fits<T extends DeepReadonly<z.input<typeof exportModelSchema>>> = T;
export type CheckedExportModel = Fits<ExportModel>;

/** report.json's JSON Schema, as published in lab/report/report.schema.json. */
export function reportJsonSchema(): JsonSchema {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://github.com/layerlab/layerlab/lab/report/report.schema.json',
    title: 'layerlab report.json',
    description: `A run's analysis and report model, schemaVersion ${EXPORT_SCHEMA_VERSION}. Numbers a statistic cannot bound (Infinity, NaN) are null.`,
    ...toJsonSchema(exportModelSchema),
  };
}
