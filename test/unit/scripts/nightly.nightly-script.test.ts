/**
 * scripts/nightly.sh without hosts: its argument checks (exit 2 before
 * anything starts) and its dry run (the commands of a night, in order, with
 * down and sweep at the end). The real nights run it against VMs (README,
 * "Nightly").
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const work = mkdtempSync(join(tmpdir(), 'layerlab-nightly-sh-'));
const results = join(work, 'results');

function nightly(...args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((done) => {
    execFile(
      'bash',
      ['scripts/nightly.sh', ...args],
      { cwd: ROOT, env: { ...process.env, LAYERLAB_RESULTS: results, GITHUB_STEP_SUMMARY: '' } },
      (err, _stdout, stderr) => done({ code: err ? Number(err.code) : 0, stderr }),
    );
  });
}
const steps = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('+ '))
    .map((l) => l.slice(2));

describe('scripts/nightly.sh', () => {
  after(() => rmSync(work, { recursive: true, force: true }));

  it('refuses bad arguments with exit 2, before anything starts', async () => {
    const cases: [string[], RegExp][] = [
      [[], /--lab <file> is required/],
      [['--lab', join(work, 'missing.yaml')], /--lab: cannot read/],
      [['--lab', 'labs/quick.yaml', '--target', 'gcp'], /--target: expected local, aws or static; got 'gcp'/],
      [['--lab', 'labs/quick.yaml', '--target', 'static'], /--target static needs --inventory/],
      [['--lab', 'labs/quick.yaml', '--threshold', '5'], /--threshold: expected a percentage like 5%/],
      [['--lab', 'labs/quick.yaml', '--baseline', 'yesterday'], /--baseline: expected last or nights:N/],
      [['--lab', 'labs/quick.yaml', '--bogus'], /unknown argument: --bogus/],
      [['--lab', 'labs/quick.yaml', '--accept', '../x', '--history', 'h'], /--accept: expected a run id/],
      [['--lab', 'labs/quick.yaml', '--accept', '20261201-020100-nightly-0001'], /--accept needs --history/],
      [['--lab'], /--lab needs a value/],
      // An unset secret in the workflow: no durable history would be silent, so it is refused.
      [['--lab', 'labs/quick.yaml', '--history', ''], /--history needs a value \(got none, or an empty one\)/],
    ];
    for (const [args, message] of cases) {
      const r = await nightly(...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.match(r.stderr, /usage|scripts\/nightly\.sh --lab <file>/);
      assert.deepEqual(steps(r.stderr), [], 'nothing ran');
    }
    assert.ok(!existsSync(results), 'no results folder was made');
  });

  it('refuses a lab definition that does not validate (exit 2), in a dry run too', async () => {
    const bad = join(work, 'bad.yaml');
    writeFileSync(bad, 'name: Bad Name\nhosts: []\n');
    const r = await nightly('--dry-run', '--lab', bad, '--target', 'local');
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /invalid lab definition/);
    assert.deepEqual(steps(r.stderr), [`layerlab validate ${bad}`], 'nothing after the check');
  });

  it('a dry run lists the night: history in, up, run, compare, down, sweep, history out', async () => {
    const history = join(work, 'durable', 'history.sqlite');
    const r = await nightly('--dry-run', '--lab', 'labs/quick.yaml', '--target', 'local', '--history', history);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(steps(r.stderr), [
      'layerlab validate labs/quick.yaml',
      `mkdir -p ${results}`,
      'layerlab up --target local --lab labs/quick.yaml',
      'layerlab run --target local --lab labs/quick.yaml',
      `layerlab compare --baseline last --threshold 5% --benchmark-dir ${results}/nightly/\\<run-id\\>/benchmark ${results}/\\<run-id\\>`,
      'layerlab down --target local --lab labs/quick.yaml',
      'layerlab sweep --local',
      `cp ${results}/history.sqlite ${history}.new`,
      `mv ${history}.new ${history}`,
    ]);
    assert.match(r.stderr, /no history at .* yet \(first night\)/);
    assert.match(r.stderr, /nightly: exit 0/);
  });

  it('--teardown runs only down and sweep', async () => {
    const inventory = join(work, 'hosts.yaml');
    writeFileSync(inventory, 'hosts: []\n');
    const r = await nightly(
      '--dry-run',
      '--teardown',
      '--lab',
      'labs/quick.yaml',
      '--target',
      'static',
      '--inventory',
      inventory,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(steps(r.stderr), [
      `layerlab down --target static --inventory ${inventory} --lab labs/quick.yaml`,
      'layerlab sweep --local',
    ]);
  });
});
