/**
 * `layerlab schema` (issue 37, item 4) through the real CLI entry: it prints
 * the lab definition's JSON Schema, and the copy the repository keeps for
 * editors (lab/definition/lab.schema.json) is exactly that.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { LAB_SCHEMA_FILE } from '../../../lab/definition/json-schema.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const BIN = join(ROOT, 'bin', 'layerlab.js');

function layerlab(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

describe('layerlab schema', () => {
  it('prints a JSON Schema of the lab file and exits 0', () => {
    const r = layerlab('schema');
    assert.equal(r.status, 0, r.err);
    const schema = JSON.parse(r.out) as { $schema?: string; type?: string; properties?: Record<string, unknown> };
    assert.match(schema.$schema ?? '', /json-schema\.org/);
    assert.equal(schema.type, 'object');
    assert.ok(schema.properties?.repetitions, 'the schema has the top-level key repetitions');
  });

  it(`${LAB_SCHEMA_FILE} is what it prints now`, () => {
    const r = layerlab('schema');
    assert.equal(r.status, 0, r.err);
    const kept = readFileSync(join(ROOT, LAB_SCHEMA_FILE), 'utf8');
    assert.ok(
      kept === r.out,
      `${LAB_SCHEMA_FILE} differs from \`layerlab schema\` (the zod schema changed): regenerate it with \`node bin/layerlab.js schema > ${LAB_SCHEMA_FILE}\` and commit it`,
    );
  });

  it('--help shows an example and the line a lab file starts with', () => {
    const r = layerlab('schema', '--help');
    assert.equal(r.status, 0, r.err);
    assert.match(r.out, /layerlab schema > lab\.schema\.json/);
    assert.match(r.out, /# yaml-language-server: \$schema=\.\.\/lab\/definition\/lab\.schema\.json/);
  });
});
