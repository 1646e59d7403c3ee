/**
 * Regressions across nights through results/history.sqlite alone (no run
 * folders): constructed histories (nights.ts) with seeded log-normal noise, compared by
 * `layerlab compare --baseline ...` (compareCommand), the same
 * family-controlled rank test as the report.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs, { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { main } from '../../../lab/cli.ts';
import { compareCommand } from '../../../lab/commands/compare-runs.ts';
import { UserError } from '../../../lab/errors.ts';
import { History } from '../../../lab/history/history.ts';
import { HISTORY_VERSION } from '../../../lab/history/schema.ts';
import { sqlite } from '../../../lab/history/sqlite-file.ts';
import { withStderrCaptured } from '../stderr-capture.ts';
import { HOSTS, type Night, night, resultsFolder, runId } from './nights.ts';

describe('regressions across nights, from the history alone', () => {
  let folder: ReturnType<typeof resultsFolder>;
  let results: string;
  before(() => {
    folder = resultsFolder();
    results = folder.path;
  });
  after(() => folder.restore());

  /** A fresh history holding these nights, in order. */
  async function history(nights: Night[]): Promise<void> {
    rmSync(join(results, 'history.sqlite'), { force: true });
    for (const n of nights) await folder.record(n);
  }

  const json = (out: { output: string }) =>
    JSON.parse(out.output) as { regressions: number; baselineRuns: string[]; cells: { kind: string; host: string }[] };

  it('flags a 20% regression of one host (exit 1), and only that host', async () => {
    await history([
      { n: 1, seed: 1 },
      { n: 2, seed: 2, xfsFactor: 0.8 },
    ]);
    const out = await compareCommand([runId(2)], { baseline: 'last', threshold: '5%', json: true });
    assert.equal(out.exitCode, 1);
    const result = json(out);
    assert.deepEqual(result.baselineRuns, [runId(1)]);
    const regressed = result.cells.filter((c) => c.kind === 'regression');
    assert.equal(regressed.length, 12, 'every headline cell of xfs: 3 mounts x 2 jobs x (bw, clat_p99)');
    assert.ok(
      regressed.every((c) => c.host === 'xfs'),
      'only xfs regressed',
    );
    const md = await compareCommand([runId(2)], { baseline: 'last', threshold: '5%' });
    assert.match(md.output, /\*\*12 regression\(s\)\*\* worse by more than 5%/);
    assert.match(md.output, /\*\*REGRESSION\*\* new is 2\d% lower — worse/);
  });

  it('does not flag a 3% regression at --threshold 5%, even where the test claims it', async () => {
    await history([
      { n: 1, seed: 3, cv: 0.005 },
      { n: 2, seed: 4, cv: 0.005, xfsFactor: 0.97 },
    ]);
    const out = await compareCommand([runId(2)], { baseline: 'last', threshold: '5%', json: true });
    assert.equal(out.exitCode, 0);
    const cells = json(out).cells;
    assert.equal(cells.filter((c) => c.kind === 'regression').length, 0);
    assert.ok(
      cells.filter((c) => c.kind === 'within-threshold').length > 0,
      'with this little noise the 3% is claimed, and kept below the threshold',
    );
    // Without a threshold the same claimed 3% is a regression.
    assert.equal((await compareCommand([runId(2)], { baseline: 'last', json: true })).exitCode, 1);
  });

  it('ten A/A nights, each against the night before: nothing flagged', async () => {
    await history(Array.from({ length: 11 }, (_, i) => ({ n: i + 1, seed: 100 + i })));
    for (let n = 2; n <= 11; n++) {
      const out = await compareCommand([runId(n)], { baseline: 'last', threshold: '5%', json: true });
      assert.equal(out.exitCode, 0, `night ${n}`);
      assert.deepEqual(json(out).baselineRuns, [runId(n - 1)]);
    }
  });

  it('takes the last good run of the same setup: failed, other-target, other-hosts and other-parameter runs are skipped', async () => {
    await history([
      { n: 1, seed: 1 },
      { n: 2, seed: 2, failed: 1 },
      { n: 3, seed: 3, target: 'static' },
      { n: 4, seed: 4, hosts: [HOSTS[0] as (typeof HOSTS)[0]] },
      { n: 5, seed: 5, fioSize: '8M' },
      { n: 6, seed: 6 },
    ]);
    assert.deepEqual(json(await compareCommand([runId(6)], { baseline: 'last', json: true })).baselineRuns, [runId(1)]);
    // --lab alone means its newest run.
    assert.deepEqual(json(await compareCommand([], { baseline: 'last', lab: 'nightly', json: true })).baselineRuns, [
      runId(1),
    ]);
    // A named baseline is taken whatever its setup.
    assert.deepEqual(json(await compareCommand([runId(6)], { baseline: runId(3), json: true })).baselineRuns, [
      runId(3),
    ]);
  });

  it('nights:N pools the repetitions of the last N good runs', async () => {
    await history([1, 2, 3, 4].map((n) => ({ n, seed: n })));
    const out = json(await compareCommand([runId(4)], { baseline: 'nights:3', json: true }));
    assert.deepEqual(out.baselineRuns, [runId(3), runId(2), runId(1)]);
    const cell = (out.cells as unknown as { nBaseline: number; nNew: number }[])[0];
    assert.deepEqual([cell?.nNew, cell?.nBaseline], [5, 15]);
  });

  it('the first night has no baseline: exit 0, and says so', async () => {
    await history([{ n: 1, seed: 1 }]);
    const out = await compareCommand([runId(1)], { baseline: 'last' });
    assert.equal(out.exitCode, 0);
    assert.match(
      out.output,
      /no earlier good run of lab nightly with target aws, hosts .* and the same scenario parameters .*this run is the baseline of the next/,
    );
  });

  it('writes the run for github-action-benchmark, one file per direction', async () => {
    await history([{ n: 1, seed: 1 }]);
    const dir = join(results, 'benchmark');
    await compareCommand([runId(1)], { baseline: 'last', benchmarkDir: dir });
    const bigger = JSON.parse(readFileSync(join(dir, 'bigger-is-better.json'), 'utf8'));
    const smaller = JSON.parse(readFileSync(join(dir, 'smaller-is-better.json'), 'utf8'));
    assert.equal(bigger.length, 12);
    assert.equal(smaller.length, 12);
    const entry = bigger.find((e: { name: string }) => e.name === 'fio/xfs/volume/seqwrite/write/bw');
    assert.deepEqual(Object.keys(entry), ['name', 'unit', 'value', 'range', 'extra']);
    assert.equal(entry.unit, 'KiB/s');
    assert.ok(Math.abs(entry.value / 200_000 - 1) < 0.1, 'the median of its five repetitions');
    assert.match(entry.range, /^± \d/);
  });

  it('through the CLI: exit 1 for a regression, 0 for none, 2 for bad input', async () => {
    await history([
      { n: 1, seed: 1 },
      { n: 2, seed: 2, xfsFactor: 0.8 },
      { n: 3, seed: 3, xfsFactor: 0.8 },
    ]);
    const write = process.stdout.write;
    process.stdout.write = () => true;
    try {
      const layerlab = (...args: string[]) => main(['node', 'layerlab', 'compare', ...args]);
      assert.equal(await layerlab('--baseline', 'last', '--threshold', '5%', runId(2)), 1);
      // Night 2 was flagged, so night 3 is compared with night 1: the regression stays visible.
      assert.equal(await layerlab('--baseline', 'last', '--lab', 'nightly', '--threshold', '5%'), 1, 'night 3 vs 1');
      assert.equal(await layerlab('--baseline', runId(2), '--lab', 'nightly', '--threshold', '5%'), 0, 'night 3 vs 2');
      assert.equal(await layerlab('--baseline', 'last', '--threshold', 'five', runId(2)), 2);
      assert.equal(await layerlab('--baseline', 'nights:0', runId(2)), 2);
    } finally {
      process.stdout.write = write;
      process.exitCode = 0;
    }
  });

  it('refuses bad input with exit 2 (UserError) before reading anything', async () => {
    await history([{ n: 1, seed: 1 }]);
    const refuses = (refs: string[], opts: Parameters<typeof compareCommand>[1], message: RegExp) =>
      assert.rejects(
        () => compareCommand(refs, opts),
        (err: unknown) => err instanceof UserError && message.test(err.message),
      );
    await refuses([runId(1)], { baseline: 'yesterday' }, /--baseline: expected last, nights:N/);
    await refuses([runId(1)], { baseline: 'last', threshold: '5' }, /--threshold: expected a percentage/);
    await refuses([runId(1)], { baseline: 'last', threshold: '150%' }, /--threshold/);
    await refuses([runId(2)], { baseline: 'last' }, /is not in .*history\.sqlite; `layerlab report/);
    await refuses([], { baseline: 'last' }, /name the new run, or --lab/);
    await refuses([runId(1)], { baseline: 'last', lab: 'other' }, /is of lab nightly, not --lab other/);
    await refuses([runId(1)], { baseline: runId(9) }, /no such run/);
    await refuses([runId(1)], {}, /give two runs/);
  });
});

describe('history.sqlite versions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'layerlab-history-v-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('migrates a version-1 file (0cbdd09 and before) in place: host sets come from its samples', async () => {
    const path = join(dir, 'v1.sqlite');
    const db = new (await sqlite()).Database();
    // The schema as lab/history/history.ts created it up to 0cbdd09.
    db.exec(`
      CREATE TABLE runs (run_id TEXT PRIMARY KEY, lab TEXT NOT NULL, started_at TEXT, git_revision TEXT, target TEXT,
        trials INTEGER, done INTEGER, failed INTEGER, wall_seconds REAL, stopped_by TEXT);
      CREATE TABLE samples (run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
        host TEXT, profile TEXT, scenario TEXT, mount TEXT, rep INTEGER, trial TEXT,
        metric TEXT, value REAL, unit TEXT, timestamp TEXT, labels TEXT);
      CREATE INDEX samples_run ON samples(run_id);`);
    const insertRun = db.prepare(
      "INSERT INTO runs VALUES (?, 'nightly', NULL, 'abc', 'aws', 30, 30, 0, 60, 'fixed-count')",
    );
    const insertSample = db.prepare(
      "INSERT INTO samples VALUES (?, ?, ?, 'fio', 'volume', ?, 't', 'bw', ?, 'KiB/s', 't0', '{\"job\":\"seqwrite\",\"direction\":\"write\"}')",
    );
    for (const id of [runId(1), runId(2)]) {
      insertRun.run([id]);
      for (let rep = 1; rep <= 5; rep++) {
        insertSample.run([id, 'xfs', 'overlay2-xfs', rep, 100 + rep]);
        insertSample.run([id, 'dm', 'devicemapper-lvm', rep, 50 + rep]);
      }
    }
    insertRun.free();
    insertSample.free();
    writeFileSync(path, db.export());
    db.close();

    const h = await History.open(path);
    try {
      const [first, second] = h.runs('nightly');
      assert.equal(first?.hosts, '{"dm":"devicemapper-lvm","xfs":"overlay2-xfs"}');
      assert.equal(first?.scenarios, null);
      assert.deepEqual(
        h.earlierGoodRuns(second as NonNullable<typeof second>).map((r) => r.run_id),
        [runId(1)],
      );
      assert.deepEqual(
        h.samples(runId(1))[0],
        {
          run: runId(1),
          host: 'xfs',
          profile: 'overlay2-xfs',
          scenario: 'fio',
          mount: 'volume',
          rep: 1,
          trial: 't',
          metric: 'bw',
          value: 101,
          unit: 'KiB/s',
          timestamp: 't0',
          job: 'seqwrite',
          direction: 'write',
        },
        'a sample reads back as samples.ndjson had it',
      );
      // A new night lands beside the migrated ones.
      h.record(night({ n: 3, seed: 1 }));
      assert.equal(h.runs('nightly').length, 3);
    } finally {
      h.close();
    }
    assert.equal(await userVersion(path), HISTORY_VERSION);
  });

  it('refuses a file written by a newer layerlab, naming both versions', async () => {
    const path = join(dir, 'future.sqlite');
    const db = new (await sqlite()).Database();
    db.exec(`CREATE TABLE runs (run_id TEXT PRIMARY KEY); PRAGMA user_version = ${HISTORY_VERSION + 1}`);
    const bytes = db.export();
    db.close();
    writeFileSync(path, bytes);
    await assert.rejects(
      () => History.open(path),
      (err: unknown) =>
        err instanceof UserError &&
        err.message.includes(`history version ${HISTORY_VERSION + 1}`) &&
        err.message.includes(`up to version ${HISTORY_VERSION}`),
    );
    assert.deepEqual(readFileSync(path), Buffer.from(bytes), 'the file is left as it was');
  });
});

/** SQLite's user_version of the file at `path`. */
async function userVersion(path: string): Promise<unknown> {
  const db = new (await sqlite()).Database(readFileSync(path));
  try {
    return db.exec('PRAGMA user_version')[0]?.values[0]?.[0];
  } finally {
    db.close();
  }
}

/** The history at `path` after recording these nights, closed again. */
async function recorded(path: string, ns: number[]): Promise<void> {
  const h = await History.open(path);
  try {
    for (const n of ns) h.record(night({ n }));
  } finally {
    h.close();
  }
}

async function runIds(path: string): Promise<string[]> {
  const h = await History.open(path);
  try {
    return h.runs().map((r) => r.run_id);
  } finally {
    h.close();
  }
}

describe('history.sqlite on disk (sql.js: read whole, written back whole)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'layerlab-history-file-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let count = 0;
  /** A fresh folder for one case: its history.sqlite path. */
  const fresh = () => {
    const sub = join(dir, String(++count));
    mkdirSync(sub);
    return join(sub, 'history.sqlite');
  };

  it('a file an older layerlab left in WAL mode opens, keeps its rows and is written back in rollback mode', async () => {
    const path = fresh();
    await recorded(path, [1, 2]);
    const bytes = readFileSync(path);
    // Bytes 18 and 19 of the header: the write and read versions, 2 in WAL mode (better-sqlite3's journal_mode = WAL).
    bytes[18] = 2;
    bytes[19] = 2;
    writeFileSync(path, bytes);
    const h = await History.open(path);
    try {
      assert.deepEqual(
        h.runs().map((r) => [r.run_id, r.samples]),
        [
          [runId(1), 120],
          [runId(2), 120],
        ],
      );
      assert.equal(h.samples(runId(2)).length, 120);
      assert.deepEqual([...readFileSync(path).subarray(18, 20)], [2, 2], 'reading writes nothing');
      h.record(night({ n: 3 }));
    } finally {
      h.close();
    }
    assert.deepEqual([...readFileSync(path).subarray(18, 20)], [1, 1], 'the first write leaves a rollback-mode file');
    assert.deepEqual(await runIds(path), [runId(1), runId(2), runId(3)]);
  });

  it('refuses a history with a -wal file beside it (an older layerlab stopped mid-write), saying what to do', async () => {
    const path = fresh();
    await recorded(path, [1]);
    const before = readFileSync(path);
    const wal = `${path}-wal`;
    writeFileSync(wal, 'frames an older layerlab did not fold in');
    const refused = (err: unknown) =>
      err instanceof UserError &&
      err.message.includes(`${wal} exists`) &&
      err.message.includes(`sqlite3 ${path} 'PRAGMA wal_checkpoint(TRUNCATE)'`);
    await assert.rejects(() => History.open(path), refused);
    // Appearing after the history was opened: the next write refuses too.
    rmSync(wal);
    const h = await History.open(path);
    try {
      writeFileSync(wal, 'frames');
      assert.throws(() => h.record(night({ n: 2 })), refused);
    } finally {
      h.close();
    }
    assert.deepEqual(readFileSync(path), before, 'the history is left as it was');
    assert.ok(existsSync(wal), 'and so is the -wal file');
  });

  it('two History objects on one file, writing in turn, keep both writers’ runs; reads see the other’s', async () => {
    const path = fresh();
    const [a, b] = [await History.open(path), await History.open(path)];
    try {
      a.record(night({ n: 1 }));
      b.record(night({ n: 2 }));
      a.record(night({ n: 3 }));
      b.judged(runId(1), true, ['fio/xfs/volume/seqwrite/write/bw']);
      a.accept(runId(2), '2026-12-04T00:00:00Z');
      assert.deepEqual(
        b.runs().map((r) => [r.run_id, r.regressed, r.accepted_at]),
        [
          [runId(1), 1, null],
          [runId(2), null, '2026-12-04T00:00:00Z'],
          [runId(3), null, null],
        ],
      );
    } finally {
      a.close();
      b.close();
    }
    assert.deepEqual(await runIds(path), [runId(1), runId(2), runId(3)]);
  });

  it('two processes recording at once keep every run (one writer at a time, each re-reading the file)', async () => {
    const path = fresh();
    await recorded(path, []);
    const script = `
      import { History } from ${JSON.stringify(join(import.meta.dirname, '../../../lab/history/history.ts'))};
      import { night } from ${JSON.stringify(join(import.meta.dirname, 'nights.ts'))};
      const first = Number(process.argv.at(-1));
      for (let n = first; n < first + 4; n++) {
        const h = await History.open(${JSON.stringify(path)});
        try { h.record(night({ n })); } finally { h.close(); }
      }`;
    const child = (first: number) =>
      new Promise<number | null>((done) => {
        const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, String(first)], {
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        p.on('close', done);
      });
    assert.deepEqual(await Promise.all([child(1), child(11)]), [0, 0]);
    assert.deepEqual(await runIds(path), [1, 2, 3, 4, 11, 12, 13, 14].map(runId));
    assert.ok(!existsSync(`${path}.lock`), 'the lock is gone');
  });

  it('takes over a lock left by a process that is gone, and says so', async () => {
    const path = fresh();
    await recorded(path, [1]);
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const holder = { pid: gone, startTicks: '1', since: '2026-12-01T00:00:00Z', command: 'layerlab report' };
    writeFileSync(`${path}.lock`, `${JSON.stringify(holder)}\n`);
    const { said } = await withStderrCaptured(() => recorded(path, [2]));
    assert.match(
      said,
      new RegExp(`history\\.sqlite\\.lock was left by pid ${gone} \\(layerlab report\\), which is gone`),
    );
    assert.deepEqual(await runIds(path), [runId(1), runId(2)]);
    assert.ok(!existsSync(`${path}.lock`), 'released after the write');
  });

  it('a write that fails midway leaves the previous file, and the History, as they were', async () => {
    const path = fresh();
    await recorded(path, [1]);
    const before = readFileSync(path);
    const h = await History.open(path);
    const real = fs.writeSync;
    try {
      // The disk fills up halfway through writing the new file.
      fs.writeSync = ((fd: number, buffer: Uint8Array, offset: number, length: number) => {
        if (length < 4096) return real(fd, buffer, offset, length); // the lock file, not the database
        real(fd, buffer, offset, Math.floor(length / 2));
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }) as unknown as typeof fs.writeSync;
      syncBuiltinESMExports();
      assert.throws(() => h.record(night({ n: 2 })), /ENOSPC/);
    } finally {
      fs.writeSync = real;
      syncBuiltinESMExports();
    }
    try {
      assert.deepEqual(readFileSync(path), before, 'the file is byte for byte the previous one');
      assert.deepEqual(readdirSync(dirname(path)), ['history.sqlite'], 'no temporary file, no lock left');
      assert.deepEqual(
        h.runs().map((r) => r.run_id),
        [runId(1)],
      );
      // A change that fails halfway through its rows (a value SQLite cannot store) writes nothing either.
      const bad = night({ n: 3 });
      (bad.samples[30] as { value: unknown }).value = { not: 'a number' };
      assert.throws(() => h.record(bad), /bind/);
      assert.deepEqual(readFileSync(path), before, 'still the previous file');
      h.record(night({ n: 4 }));
    } finally {
      h.close();
    }
    assert.deepEqual(await runIds(path), [runId(1), runId(4)]);
  });
});
