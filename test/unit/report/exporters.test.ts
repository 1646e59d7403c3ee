/**
 * Issue 36 item 3: one list of exporters, every one rendered from the same
 * export model; `layerlab report --format json` writes that model, and it
 * validates against the published lab/report/report.schema.json.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { analyzeRun } from '../../../lab/analyze/analysis.ts';
import { benchmarkEntries } from '../../../lab/history/benchmark-export.ts';
import { loadRun } from '../../../lab/record/load.ts';
import { buildExportModel } from '../../../lab/report/build.ts';
import { samplesCsv } from '../../../lab/report/csv.ts';
import { EXPORT_SCHEMA_VERSION, type ExportModel, reportJsonSchema } from '../../../lab/report/exporter.ts';
import { DEFAULT_EXPORTERS, EXPORTERS, exportersNamed } from '../../../lab/report/exporters.ts';
import { renderHtml } from '../../../lab/report/html.ts';
import { renderMarkdown } from '../../../lab/report/markdown.ts';
import { scenarioMetric } from '../../../lab/scenarios/index.ts';
import { writeRun } from '../run-fixture.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const SCHEMA_FILE = join(ROOT, 'lab', 'report', 'report.schema.json');
const results = mkdtempSync(join(tmpdir(), 'layerlab-exporters-'));
after(() => rmSync(results, { recursive: true, force: true }));

type Schema = { [key: string]: unknown };

/**
 * The errors of `value` against a JSON Schema, for the subset
 * lab/util/zod-json-schema.ts writes: type, const, enum, anyOf, properties,
 * required, additionalProperties, items. Each error names its JSON path.
 */
function validate(schema: Schema, value: unknown, path = '$'): string[] {
  const errors: string[] = [];
  const typeOf = (v: unknown) =>
    v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;
  if (schema.type !== undefined) {
    const actual = typeOf(value);
    const ok = schema.type === actual || (schema.type === 'number' && actual === 'integer');
    if (!ok) return [`${path}: expected ${schema.type}, got ${actual}`];
  }
  if ('const' in schema && value !== schema.const) errors.push(`${path}: expected ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
    errors.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  }
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some((s) => validate(s as Schema, value, path).length === 0)) {
    errors.push(`${path}: matches none of ${schema.anyOf.length} alternatives`);
  }
  if (schema.type === 'object' && typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const key of (schema.required ?? []) as string[]) {
      if (!(key in object)) errors.push(`${path}: ${key} is required`);
    }
    for (const [key, v] of Object.entries(object)) {
      const own = properties[key];
      if (own) errors.push(...validate(own, v, `${path}.${key}`));
      else if (schema.additionalProperties === false) errors.push(`${path}: ${key} is not allowed`);
      else if (typeof schema.additionalProperties === 'object') {
        errors.push(...validate(schema.additionalProperties as Schema, v, `${path}.${key}`));
      }
    }
  }
  if (schema.type === 'array' && Array.isArray(value) && schema.items) {
    value.forEach((item, i) => errors.push(...validate(schema.items as Schema, item, `${path}[${i}]`)));
  }
  return errors;
}

/** The fixture run (fio on two hosts and two mount kinds), each trial with a real fio output to re-parse. */
function fioRun(runId: string): string {
  const dir = join(results, runId);
  writeRun(dir);
  for (const trial of readdirSync(join(dir, 'trials'))) {
    copyFileSync(join(ROOT, 'test', 'fixtures', 'fio', 'four-jobs.json'), join(dir, 'trials', trial, 'fio.json'));
  }
  return dir;
}

function layerlab(...args: string[]) {
  return spawnSync(process.execPath, [join(ROOT, 'bin', 'layerlab.js'), ...args], {
    cwd: results,
    env: { ...process.env, LAYERLAB_RESULTS: results },
    encoding: 'utf8',
  });
}

describe('the JSON Schema of report.json', () => {
  it('the published file is the one generated from the zod model', () => {
    assert.deepEqual(
      JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')),
      reportJsonSchema(),
      'regenerate: node --import tsx -e "import(\'./lab/report/exporter.ts\').then((m) => console.log(JSON.stringify(m.reportJsonSchema(), null, 2)))" > lab/report/report.schema.json',
    );
  });

  it('the validator refuses what the schema does not allow', () => {
    const schema = reportJsonSchema();
    assert.ok(
      validate(schema, { schemaVersion: EXPORT_SCHEMA_VERSION }).some((e) => /runId is required/.test(e)),
      'a model without runId is refused',
    );
    const bad = { type: 'object', properties: { v: { enum: ['a'] } }, required: ['v'], additionalProperties: false };
    assert.deepEqual(validate(bad, { v: 'b', w: 1 }), ['$.v: "b" is not one of ["a"]', '$: w is not allowed']);
    assert.deepEqual(validate({ anyOf: [{ type: 'number' }, { type: 'null' }] }, 'x'), [
      '$: matches none of 2 alternatives',
    ]);
  });
});

describe('layerlab report --format', () => {
  let dir: string;
  before(() => {
    dir = fioRun('20261130-000000-demo-1b1b');
  });

  it('json: exit 0, report.json validates against the published schema', () => {
    const out = layerlab('report', '20261130-000000-demo-1b1b', '--format', 'json');
    assert.equal(out.status, 0, out.stderr);
    assert.equal(out.stdout.trim(), join(dir, 'report.json'));
    const json = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
    assert.equal(json.schemaVersion, EXPORT_SCHEMA_VERSION);
    assert.ok(json.analysis[0].samples.length > 0, 'the fio outputs were re-parsed');
    assert.ok(json.analysis[0].comparisons.length > 0, 'and compared');
    assert.deepEqual(validate(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')), json), []);
    assert.ok(!existsSync(join(dir, 'report.md')), 'only the formats asked for');
  });

  it('several formats, comma-separated; an unknown one is refused (exit 2) naming the formats there are', () => {
    const out = layerlab('report', '20261130-000000-demo-1b1b', '--format', 'csv,bigger-is-better');
    assert.equal(out.status, 0, out.stderr);
    assert.ok(existsSync(join(dir, 'samples.csv')) && existsSync(join(dir, 'bigger-is-better.json')), 'both written');
    const bad = layerlab('report', '20261130-000000-demo-1b1b', '--format', 'md');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--format "md": unknown format\(s\) md; formats: markdown, html, csv, json/);
  });
});

describe('every exporter renders from the one model', () => {
  let model: ExportModel;
  before(() => {
    const run = loadRun(fioRun('20261130-000000-demo-2c2c'));
    model = buildExportModel(run, analyzeRun(run));
  });
  const render = async (name: string) => String(await (exportersNamed(name)[0]?.render(model) ?? ''));

  it('the list: markdown, html and csv by default (the files a report always had), json and the benchmark files on demand', () => {
    assert.deepEqual(
      EXPORTERS.map((e) => `${e.name} ${e.fileName}`),
      [
        'markdown report.md',
        'html report.html',
        'csv samples.csv',
        'json report.json',
        'bigger-is-better bigger-is-better.json',
        'smaller-is-better smaller-is-better.json',
      ],
    );
    assert.deepEqual(
      DEFAULT_EXPORTERS.map((e) => e.name),
      ['markdown', 'html', 'csv'],
    );
  });

  it('markdown and html render the model’s report as the renderers always did', async () => {
    assert.equal(await render('markdown'), renderMarkdown(model.report));
    assert.equal(await render('html'), await renderHtml(model.report));
  });

  it('csv holds the model’s samples; json is the model itself', async () => {
    const samples = model.analysis.flatMap((a) => a.samples);
    assert.equal(await render('csv'), samplesCsv(samples));
    assert.deepEqual(JSON.parse(await render('json')), JSON.parse(JSON.stringify(model)));
  });

  it('the benchmark files: the metrics and directions the registry declares', async () => {
    const samples = model.analysis.flatMap((a) => a.samples);
    const { bigger, smaller } = benchmarkEntries(samples, model.runId, scenarioMetric);
    assert.ok(bigger.length > 0 && smaller.length > 0, 'fio has metrics of both directions');
    assert.deepEqual(JSON.parse(await render('bigger-is-better')), bigger);
    assert.deepEqual(JSON.parse(await render('smaller-is-better')), smaller);
  });
});
