/**
 * A failing `assert.ok(x)` without a message makes node rebuild the message
 * from the source; under tsx the whole test file is one long line and that
 * takes minutes to hours (a CI hang instead of a failure). Every assert.ok in
 * our tests says what it checks.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { it } from 'node:test';
import ts from 'typescript';

const TEST_ROOT = resolve(import.meta.dirname, '..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() && e.name !== 'fixtures'
      ? testFiles(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

it('every assert.ok / assert() in the tests has a message', () => {
  const bare: string[] = [];
  for (const file of testFiles(TEST_ROOT)) {
    const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) && node.arguments.length === 1) {
        const callee = node.expression.getText(src);
        if (callee === 'assert.ok' || callee === 'assert') {
          bare.push(`${file}:${src.getLineAndCharacterOfPosition(node.getStart(src)).line + 1}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(src);
  }
  assert.deepEqual(bare, [], 'add a message to these asserts');
});
