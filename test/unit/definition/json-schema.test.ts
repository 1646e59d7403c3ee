/**
 * The lab file's JSON Schema (issue 37, item 4): what an editor gets from
 * it, and every file in labs/ naming it in its first line and being a valid
 * lab. No JSON Schema validator is a dependency: the labs are validated by
 * the zod schema the JSON Schema is generated from.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { LAB_SCHEMA_FILE, labJsonSchema } from '../../../lab/definition/json-schema.ts';
import { parseLabDefinition } from '../../../lab/definition/load.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const LABS = join(ROOT, 'labs');
const COMMENT = /^# yaml-language-server: \$schema=(\S+)\n/;

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  additionalProperties?: boolean;
  description?: string;
  default?: unknown;
  enum?: unknown[];
}

/** What is wrong with a lab file's first line: missing, or naming a file other than the repository's schema. */
function schemaCommentProblem(text: string, file: string): string | undefined {
  const named = COMMENT.exec(text)?.[1];
  if (named === undefined) return `${file}: the first line is not "# yaml-language-server: $schema=<path>"`;
  const target = resolve(dirname(file), named);
  const expected = join(ROOT, LAB_SCHEMA_FILE);
  return target === expected ? undefined : `${file}: $schema=${named} is ${target}, not ${expected}`;
}

/** Paths of the object properties that have no description (an editor would show nothing). */
function undescribed(schema: JsonSchema, path = ''): string[] {
  const own = path && !schema.description ? [path] : [];
  const nested = [
    ...Object.entries(schema.properties ?? {}).flatMap(([k, v]) => undescribed(v, path ? `${path}.${k}` : k)),
    ...(schema.items ? undescribedBelow(schema.items, `${path}[]`) : []),
    ...(schema.anyOf ?? []).flatMap((s) => undescribedBelow(s, path)),
  ];
  return [...own, ...nested];
}

/** As undescribed, for a schema that is not itself a key (a list's items, a union's branch). */
const undescribedBelow = (schema: JsonSchema, path: string) =>
  Object.entries(schema.properties ?? {}).flatMap(([k, v]) => undescribed(v, `${path}.${k}`));

const labFiles = () =>
  readdirSync(LABS)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => join(LABS, f));

describe('the lab JSON Schema', () => {
  const schema = labJsonSchema() as JsonSchema;

  it('lets an editor complete target.aws. keys, with their values and defaults', () => {
    const aws = schema.properties?.target?.properties?.aws;
    assert.deepEqual(Object.keys(aws?.properties ?? {}), [
      'region',
      'instanceType',
      'volumeType',
      'iops',
      'throughput',
      'rootGiB',
      'spot',
      'vpc',
    ]);
    assert.equal(aws?.additionalProperties, false, 'an unknown key under target.aws is flagged');
    assert.deepEqual(aws?.properties?.volumeType?.enum, ['gp3', 'gp2', 'io1', 'io2', 'st1']);
    assert.equal(aws?.properties?.instanceType?.default, 'm6i.xlarge');
  });

  it('every key has a description', () => {
    assert.deepEqual(undescribed(schema), []);
  });

  it('takes what a lab file may be written as: a size as text or bytes, repetitions as a count or a stop rule', () => {
    const size = schema.properties?.scenarios?.properties?.fio?.properties?.size;
    assert.deepEqual(
      size?.anyOf?.map((s) => s.type),
      ['string', 'integer'],
    );
    const repetitions = schema.properties?.repetitions;
    assert.deepEqual(
      repetitions?.anyOf?.map((s) => s.type),
      ['integer', 'object'],
    );
  });

  it('finds a key without a description', () => {
    const bare: JsonSchema = {
      type: 'object',
      properties: { a: { type: 'string', description: 'x' }, b: { type: 'object', properties: { c: {} } } },
    };
    assert.deepEqual(undescribed(bare), ['b', 'b.c']);
  });
});

describe('labs/', () => {
  it('has lab files', () => {
    assert.ok(labFiles().length > 0, `no .yaml files in ${LABS}`);
  });

  it(`every lab file starts with the yaml-language-server comment naming ${LAB_SCHEMA_FILE}`, () => {
    const problems = labFiles().flatMap((f) => schemaCommentProblem(readFileSync(f, 'utf8'), f) ?? []);
    assert.deepEqual(problems, []);
  });

  it('every lab file is valid against the schema the JSON Schema is generated from', () => {
    const problems: string[] = [];
    for (const file of labFiles()) {
      try {
        parseLabDefinition(readFileSync(file, 'utf8'), file);
      } catch (err) {
        problems.push((err as Error).message);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('a missing comment, and one naming another file', () => {
    const file = join(LABS, 'x.yaml');
    assert.match(schemaCommentProblem('name: x\n', file) ?? '', /first line is not/);
    assert.match(
      schemaCommentProblem('# yaml-language-server: $schema=lab.schema.json\nname: x\n', file) ?? '',
      /labs\/lab\.schema\.json, not/,
    );
    assert.equal(
      schemaCommentProblem('# yaml-language-server: $schema=../lab/definition/lab.schema.json\nname: x\n', file),
      undefined,
    );
  });
});
