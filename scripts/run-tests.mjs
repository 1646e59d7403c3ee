#!/usr/bin/env node
// Runs every *.test.ts under a folder, at any depth, with node's test runner:
//   node scripts/run-tests.mjs test/unit [node --test options...]
// Node 20's `--test` expands no globs and, given a folder, finds only .js
// test names, so the tests in the tree that mirrors the modules (test/unit/
// targets/aws/tag-sweep.test.ts) need this list. Plain JS with no dependencies:
// it runs before anything else is known to work. Files run in path order,
// which keeps the e2e files in the order bench/tap.ts reads them.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const [root, ...nodeOptions] = process.argv.slice(2);
if (!root || root.startsWith('-')) {
  process.stderr.write('usage: node scripts/run-tests.mjs <folder> [node --test options...]\n');
  process.exit(2);
}

/** Test files under dir, at any depth; fixtures and dot folders are data, not tests. */
function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' || entry.name.startsWith('.') ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

let files;
try {
  if (!statSync(root).isDirectory()) throw new Error('not a folder');
  files = testFiles(root).sort();
} catch (err) {
  process.stderr.write(`run-tests: cannot read the test folder ${root}: ${err.message}\n`);
  process.exit(2);
}
if (!files.length) {
  process.stderr.write(`run-tests: no *.test.ts under ${root}\n`);
  process.exit(2);
}

const args = ['--import', 'tsx', '--test', '--test-concurrency=2', ...nodeOptions, ...files];
const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
if (result.error) {
  process.stderr.write(`run-tests: could not start ${process.execPath}: ${result.error.message}\n`);
  process.exit(1);
}
// Killed by a signal (Ctrl-C): die of the same one, as a shell would report it.
if (result.signal) process.kill(process.pid, result.signal);
process.exit(result.status ?? 1);
