/**
 * scripts/nightly.sh. Without hosts: its argument checks (exit 2 before
 * anything starts) and its dry run (the commands of a night, in order, with
 * down and sweep at the end); the real nights run it against VMs
 * (docs/nightly.md). And its history in S3, with the real aws CLI (v2, as
 * Debian's awscli package installs it) against s3rver on 127.0.0.1, behind a
 * proxy that denies, throttles, drops or holds chosen requests. layerlab
 * itself is a fake there (a copy of the scripts beside a stand-in
 * bin/layerlab.js): what is under test is what the script does with the
 * history.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { findAwsCliV2 } from '../../../lab/util/aws-cli.ts';
import { type LocalS3, localS3Env, startLocalS3 } from './local-s3.ts';
import { type FaultProxy, startFaultProxy } from './s3-fault-proxy.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');

describe('scripts/nightly.sh without hosts: arguments and the dry run', () => {
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

  it('a dry run lists the night: history in, up, run, compare, trends, down, sweep, history out', async () => {
    const history = join(work, 'durable', 'history.sqlite');
    const r = await nightly('--dry-run', '--lab', 'labs/quick.yaml', '--target', 'local', '--history', history);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(steps(r.stderr), [
      'layerlab validate labs/quick.yaml',
      `mkdir -p ${results}`,
      'layerlab up --target local --lab labs/quick.yaml',
      'layerlab run --target local --lab labs/quick.yaml',
      `layerlab compare --baseline last --threshold 5% --benchmark-dir ${results}/nightly/\\<run-id\\>/benchmark ${results}/\\<run-id\\>`,
      `layerlab history plot --lab quick --out ${results}/nightly/\\<run-id\\>/trends`,
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

const BUCKET = 'lab-state';
const KEY = 'layerlab/history.sqlite';
const HISTORY = `s3://${BUCKET}/${KEY}`;

/** An aws CLI v2 (awscli 2.9 from Debian, or newer): what `npm test`'s doctor installs. */
const AWS = findAwsCliV2();
const SKIP = AWS ? false : 'needs the aws CLI v2 (`aws`, Debian package awscli): not found';

/** Stands in for bin/layerlab.js: each night appends its run id to results/history.sqlite. */
const FAKE_LAYERLAB = `
const fs = require('node:fs');
const path = require('node:path');
const [command] = process.argv.slice(2);
const results = process.env.LAYERLAB_RESULTS;
const id = process.env.FAKE_RUN_ID;
if (command === 'up') process.exit(Number(process.env.FAKE_UP_EXIT || 0));
if (command === 'run') {
  const dir = path.join(results, id);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'report.md'), '# report ' + id + '\\n');
  fs.appendFileSync(path.join(results, 'history.sqlite'), 'night ' + id + '\\n');
  console.log(path.join(dir, 'report.md'));
}
if (command === 'compare' && process.argv.includes('--lab')) {
  console.log('# compare of the last night: **REGRESSION** xfs');
  process.exit(1);
}
if (command === 'compare') console.log('# compare ' + id);
if (command === 'history' && process.argv[3] === 'accept')
  fs.appendFileSync(path.join(results, 'history.sqlite'), 'accepted ' + process.argv[4] + '\\n');
`;

interface Night {
  code: number;
  stderr: string;
}

describe('scripts/nightly.sh with an S3 history (real aws CLI, local S3)', { skip: SKIP }, () => {
  let work: string;
  let s3: LocalS3;
  let proxy: FaultProxy;
  let env: Record<string, string>;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'layerlab-nightly-s3-'));
    for (const dir of ['repo/scripts', 'repo/bin', 'path']) mkdirSync(join(work, dir), { recursive: true });
    for (const file of ['nightly.sh', 'nightly-history.sh'])
      copyFileSync(join(ROOT, 'scripts', file), join(work, 'repo/scripts', file));
    writeFileSync(join(work, 'repo/bin/layerlab.js'), FAKE_LAYERLAB);
    writeFileSync(join(work, 'lab.yaml'), 'name: nightly\n');
    // This aws first on PATH, whatever else the machine has (a v1 in pyenv, say).
    execFileSync('ln', ['-s', AWS as string, join(work, 'path/aws')]);
    s3 = await startLocalS3([BUCKET]);
    proxy = await startFaultProxy(s3.port);
    env = {
      ...(process.env as Record<string, string>),
      ...localS3Env(work),
      PATH: `${join(work, 'path')}:${process.env.PATH}`,
      LAYERLAB_S3_ENDPOINT: proxy.endpoint,
      LAYERLAB_RESULTS: join(work, 'results'),
      GITHUB_STEP_SUMMARY: '',
    };
  });
  after(async () => {
    await proxy?.close();
    await s3?.close();
    rmSync(work, { recursive: true, force: true });
  });
  beforeEach(() => {
    proxy.rule = () => 'pass';
    proxy.onHang = () => {};
    proxy.seen.length = 0;
  });

  /** One night on a fresh runner (no results folder), its layerlab run named `id`. */
  function night(
    id: string,
    onSpawn?: (pid: number) => void,
    extra: Record<string, string> = {},
    args: string[] = [],
  ): Promise<Night> {
    rmSync(join(work, 'results'), { recursive: true, force: true });
    return new Promise((done) => {
      const child = spawn(
        'bash',
        [join(work, 'repo/scripts/nightly.sh'), '--lab', join(work, 'lab.yaml'), '--history', HISTORY, ...args],
        { cwd: work, env: { ...env, FAKE_RUN_ID: id, ...extra }, detached: true },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => {
        stderr += d;
      });
      child.stdout.resume();
      child.on('close', (code, signal) => done({ code: code ?? (signal ? 128 : -1), stderr }));
      onSpawn?.(child.pid as number);
    });
  }

  /**
   * The bucket straight through s3rver (no proxy, no faults), with fetch:
   * s3rver takes unsigned requests, and the aws CLI costs seconds a call on
   * a loaded machine. Only the script under test uses the aws CLI.
   */
  const url = (key: string) => `${s3.endpoint}/${BUCKET}/${key}`;
  async function put(key: string, body: string): Promise<void> {
    assert.equal((await fetch(url(key), { method: 'PUT', body })).status, 200);
  }
  async function read(key: string): Promise<string> {
    const res = await fetch(url(key));
    assert.equal(res.status, 200, `GET ${key}`);
    return res.text();
  }
  async function keys(): Promise<string[]> {
    const xml = await (await fetch(`${s3.endpoint}/${BUCKET}?list-type=2`)).text();
    return [...xml.matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => m[1] as string).sort();
  }
  async function reset(): Promise<void> {
    for (const key of await keys()) await fetch(url(key), { method: 'DELETE' });
  }
  /** The history as a reader sees it: the generation the pointer names. */
  async function history(): Promise<string> {
    const generation = /^generation (.+)$/m.exec(await read(`${KEY}.current`))?.[1];
    assert.ok(generation, 'the pointer names a generation');
    return read(generation);
  }
  /** A bucket whose history (pointer and one generation) holds `text`, as a night writes it. */
  async function seed(text: string): Promise<void> {
    await reset();
    const sha = createHash('sha256').update(text).digest('hex');
    const generation = `${KEY}.d/20261201T021700Z-${sha.slice(0, 16)}.sqlite`;
    await put(generation, text);
    await put(
      `${KEY}.current`,
      `layerlab-history-pointer 1\ngeneration ${generation}\nsize ${Buffer.byteLength(text)}\nsha256 ${sha}\nprevious -\n`,
    );
  }
  const writes = () => proxy.seen.filter((r) => r.method === 'PUT' || r.method === 'DELETE');

  it('first night: no history yet, so it becomes the history; later nights add to it', async () => {
    await reset();
    const first = await night('n1');
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /no history at s3:\/\/lab-state\/layerlab\/history\.sqlite yet \(first night\)/);
    assert.equal(await history(), 'night n1\n');
    const second = await night('n2');
    assert.equal(second.code, 0, second.stderr);
    assert.equal(await history(), 'night n1\nnight n2\n');
    const third = await night('n3');
    assert.equal(third.code, 0, third.stderr);
    assert.equal(await history(), 'night n1\nnight n2\nnight n3\n');
    const generations = (await keys()).filter((k) => k.startsWith(`${KEY}.d/`));
    assert.equal(generations.length, 2, `the current generation and the one before it stay: ${generations}`);
    assert.match(
      await read(`${KEY}.current`),
      /^layerlab-history-pointer 1\ngeneration .+\nsize 27\nsha256 [0-9a-f]{64}\n/,
    );
  });

  for (const fault of ['deny', 'throttle', 'drop'] as const) {
    for (const target of ['pointer', 'generation'] as const) {
      it(`a ${fault} on reading the ${target} stops the night before anything starts; the history is unchanged`, async () => {
        await seed('night n1\n');
        const before = await history();
        const pointerBefore = await read(`${KEY}.current`);
        proxy.seen.length = 0;
        proxy.rule = ({ method, path }) =>
          method === 'GET' && (target === 'pointer' ? path.endsWith('.current') : path.includes('.d/'))
            ? fault
            : 'pass';
        const r = await night('n2');
        assert.equal(r.code, 3, r.stderr);
        assert.match(r.stderr, /cannot read the history/);
        assert.match(r.stderr, /this is not a missing history/);
        if (fault === 'deny') assert.match(r.stderr, /AccessDenied/);
        if (fault === 'throttle') assert.match(r.stderr, /SlowDown/);
        assert.doesNotMatch(r.stderr, /yet \(first night\)/);
        assert.doesNotMatch(r.stderr, /\+ node .*layerlab\.js up|layerlab up/, 'nothing was created');
        assert.deepEqual(writes(), [], 'nothing was written');
        assert.equal(await read(`${KEY}.current`), pointerBefore);
        assert.equal(await history(), before);
      });
    }
  }

  for (const fault of ['deny', 'drop'] as const) {
    for (const target of ['generation', 'pointer'] as const) {
      it(`a ${fault} on writing the ${target} fails the night (exit 3); the previous history stays readable`, async () => {
        await seed('night n1\n');
        const pointerBefore = await read(`${KEY}.current`);
        proxy.rule = ({ method, path }) =>
          method === 'PUT' && (target === 'pointer' ? path.endsWith('.current') : path.includes('.d/'))
            ? fault
            : 'pass';
        const r = await night('n2');
        assert.equal(r.code, 3, r.stderr);
        assert.match(r.stderr, /nightly: exit 3/);
        assert.equal(await read(`${KEY}.current`), pointerBefore);
        assert.equal(await history(), 'night n1\n');
      });
    }
  }

  it('a night killed while it uploads leaves the previous history whole, and the next night reads it', async () => {
    await seed('night n1\n');
    const pointerBefore = await read(`${KEY}.current`);
    let pid = 0;
    proxy.rule = ({ method, path }) => (method === 'PUT' && path.includes('.d/') ? 'hang' : 'pass');
    proxy.onHang = () => process.kill(-pid, 'SIGKILL');
    const r = await night('n2', (p) => {
      pid = p;
    });
    assert.notEqual(r.code, 0, 'killed');
    assert.equal(await read(`${KEY}.current`), pointerBefore);
    assert.equal(await history(), 'night n1\n');
    proxy.rule = () => 'pass';
    const next = await night('n3');
    assert.equal(next.code, 0, next.stderr);
    assert.equal(await history(), 'night n1\nnight n3\n');
  });

  it('a history written before pointers (one object at the key) is read and carried on', async () => {
    await reset();
    await put(KEY, 'night n0\n');
    const r = await night('n1');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /written before generations/);
    assert.equal(await history(), 'night n0\nnight n1\n');
    assert.equal(await read(KEY), 'night n0\n', 'the old object is left as it was');
  });

  it('a generation that is not what its pointer says stops the night', async () => {
    await seed('night n1\n');
    const generation = /^generation (.+)$/m.exec(await read(`${KEY}.current`))?.[1] as string;
    await put(generation, 'night nX\n');
    const r = await night('n2');
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /is not the file its pointer describes/);
    assert.deepEqual(writes(), []);
  });

  it("a night whose up failed still writes a job summary, with the last night's flagged cells", async () => {
    await seed('night n1\n');
    const summary = join(work, 'summary.md');
    rmSync(summary, { force: true });
    const r = await night('n2', undefined, { FAKE_UP_EXIT: '3', GITHUB_STEP_SUMMARY: summary });
    assert.equal(r.code, 3, r.stderr);
    const text = readFileSync(summary, 'utf8');
    assert.match(text, /nothing measured tonight \(layerlab up failed, exit 3\)/);
    assert.match(text, /\*\*REGRESSION\*\* xfs/);
    assert.equal(await history(), 'night n1\n', 'the history is written back unchanged');
  });

  it('--accept records the acceptance in the durable history, new-then-switch, and starts no lab', async () => {
    await seed('night n1\n');
    const r = await night('unused', undefined, {}, ['--accept', '20261201-020100-nightly-0001']);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /layerlab up|layerlab down/);
    assert.equal(await history(), 'night n1\naccepted 20261201-020100-nightly-0001\n');
  });
});
