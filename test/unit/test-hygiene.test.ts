/**
 * A failing `assert.ok(x)` without a message makes node rebuild the message
 * from the source; under tsx the whole test file is one long line and that
 * takes minutes to hours (a CI hang instead of a failure). Every assert.ok in
 * our tests says what it checks.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
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

/**
 * Tests mirror modules (issue 36 item 5): test/unit/<path>.test.ts tests the
 * module at lab/<path> or, outside lab/, at <path> (test/unit/targets/aws/
 * tag-sweep.test.ts tests lab/targets/aws/tag-sweep.ts; bench/tap.test.ts bench/tap.ts;
 * github/workflows.test.ts .github/workflows), so a module's tests are found
 * by its name, and all of them in one file: no second file with a word
 * after a dot (report/model.seeds.test.ts). Only tests of the whole tree sit
 * elsewhere.
 */
// Tests of the whole tree rather than one module (docs.test.ts reads README.md and every docs/ page).
const WHOLE_TREE = new Set(['layers.test.ts', 'test-hygiene.test.ts', 'docs/docs.test.ts']);

/** The module a test file's path names, or undefined: its path without `.test.ts`, under lab/ or the repository. */
function testedModule(repoRoot: string, testPath: string): string | undefined {
  const module = testPath.replace(/\.test\.ts$/, '');
  const candidates = ['lab/', '', '.'].flatMap((prefix) =>
    ['.ts', '.sh', '.mjs', '.json', ''].map((ext) => `${prefix}${module}${ext}`),
  );
  return candidates.find((c) => existsSync(join(repoRoot, c)));
}

it('every unit test file is named after the module it tests', () => {
  const unit = join(TEST_ROOT, 'unit');
  const repoRoot = resolve(TEST_ROOT, '..');
  const unnamed = testFiles(unit)
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => relative(unit, f))
    .filter((f) => !WHOLE_TREE.has(f) && !testedModule(repoRoot, f));
  assert.deepEqual(unnamed, [], 'move these to test/unit/<module path, lab/ dropped>.test.ts');
});

it('tells a test named after a module from one that is not', () => {
  const repoRoot = resolve(TEST_ROOT, '..');
  assert.equal(testedModule(repoRoot, 'targets/aws/sweep.test.ts'), 'lab/targets/aws/sweep.ts');
  assert.equal(testedModule(repoRoot, 'report/model.test.ts'), 'lab/report/model.ts');
  assert.equal(
    testedModule(repoRoot, 'report/model.seeds.test.ts'),
    undefined,
    'an aspect after a dot names no module',
  );
  assert.equal(testedModule(repoRoot, 'bench/tap.test.ts'), 'bench/tap.ts');
  assert.equal(testedModule(repoRoot, 'scripts/nightly.test.ts'), 'scripts/nightly.sh');
  assert.equal(testedModule(repoRoot, 'github/workflows.test.ts'), '.github/workflows');
  assert.equal(testedModule(repoRoot, 'security-aws.test.ts'), undefined);
  assert.equal(testedModule(repoRoot, 'targets/aws/nothing-here.test.ts'), undefined);
});
