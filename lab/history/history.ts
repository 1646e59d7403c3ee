import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { BindParams, Database, SqlJsStatic } from 'sql.js';
import { type LoadedRun, recordedLab } from '../record/load.js';
import { type Sample, scenarioLabels } from '../record/samples.js';
import { writeFileAtomicSync } from '../util/files.js';
import { comparisonKey } from './comparison-key.js';
import { migrate } from './schema.js';
import { fileStamp, inTransaction, readDatabase, sqlite, withWriteLock } from './sqlite-file.js';

/**
 * Run history: every reported run's samples in one SQLite database under
 * results/, with what identifies its setup (lab, target, host → profile), so
 * a night is compared with earlier nights without their run folders (which
 * a CI runner does not keep). Written at report time; re-reporting a run
 * replaces its rows (one transaction). Schema versions: schema.ts. The file
 * is held in memory and written back whole after each change (sqlite-file.ts:
 * atomic, one writer at a time, each writer keeping the others' rows);
 * reads see what the file holds when they are made.
 */
export class History {
  private db: Database;
  /** fileStamp of the file `db` was read from. */
  private stamp: string | undefined;

  private constructor(
    readonly path: string,
    private readonly sql: SqlJsStatic,
  ) {
    const { db, stamp, changed } = this.read();
    this.db = db;
    this.stamp = stamp;
    // A new history is created, an older one migrated, when opened (as before): written back now.
    try {
      if (changed) this.change(() => {});
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  /** Opens (creating or migrating it) the history at `path`; refuses one a newer layerlab wrote. */
  static async open(path: string): Promise<History> {
    mkdirSync(dirname(path), { recursive: true });
    return new History(path, await sqlite());
  }

  static forResults(resultsRoot: string): Promise<History> {
    return History.open(join(resultsRoot, 'history.sqlite'));
  }

  /** The file's database, brought to the current version in memory, and the stamp of what was read. */
  private read(): { db: Database; stamp: string | undefined; changed: boolean } {
    // Stamped first: a file replaced while it is read is read again by the next current().
    const stamp = fileStamp(this.path);
    const db = readDatabase(this.sql, this.path);
    try {
      return { db, stamp, changed: migrate(db, this.path) };
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /** The database as the file holds it now: re-read when another History or process has written it. */
  private current(): Database {
    const now = fileStamp(this.path);
    if (now !== undefined && now !== this.stamp) {
      const { db, stamp } = this.read();
      this.db.close();
      this.db = db;
      this.stamp = stamp;
    }
    return this.db;
  }

  /**
   * Applies `apply` to the file: under the writer lock, re-read (so rows
   * another writer added meanwhile are kept), changed in one transaction,
   * written back atomically. If anything fails, the file and this object
   * are as they were.
   */
  private change(apply: (db: Database) => void): void {
    withWriteLock(this.path, () => {
      const { db } = this.read();
      try {
        inTransaction(db, () => apply(db));
        writeFileAtomicSync(this.path, db.export());
      } catch (err) {
        db.close();
        throw err;
      }
      this.db.close();
      this.db = db;
      this.stamp = fileStamp(this.path);
    });
  }

  record(run: LoadedRun): void {
    const m = run.manifest as LoadedRun['manifest'] & {
      startedAt?: string;
      gitRevision?: string;
      inventory?: { target?: string };
      lab: { scenarios?: unknown };
    };
    const hosts = Object.fromEntries(recordedLab(run).hosts.map((h) => [h.name, h.profile] as const));
    this.change((db) => {
      // Re-reporting a run keeps what was said about it (its verdict, its acceptance).
      const [kept] = rows<{ regressed: number | null; accepted_at: string | null; regressed_cells: string | null }>(
        db,
        'SELECT regressed, accepted_at, regressed_cells FROM runs WHERE run_id = ?',
        [m.runId],
      );
      db.run('DELETE FROM samples WHERE run_id = ?', [m.runId]);
      db.run('DELETE FROM runs WHERE run_id = ?', [m.runId]);
      db.run(
        `INSERT INTO runs (run_id, lab, started_at, git_revision, target, trials, done, failed, wall_seconds, stopped_by, hosts, scenarios, env_key, regressed, accepted_at, regressed_cells)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          m.runId,
          m.lab.name,
          m.startedAt ?? null,
          m.gitRevision ?? null,
          m.inventory?.target ?? null,
          run.summary?.trials ?? null,
          run.summary?.done ?? null,
          run.summary?.failed ?? null,
          run.summary?.wallSeconds ?? null,
          run.summary?.stoppedBy ?? null,
          hostSetKey(JSON.stringify(hosts)),
          m.lab.scenarios === undefined ? null : JSON.stringify(m.lab.scenarios),
          JSON.stringify(comparisonKey(run)),
          kept?.regressed ?? null,
          kept?.accepted_at ?? null,
          kept?.regressed_cells ?? null,
        ],
      );
      const insertSample = db.prepare(
        `INSERT INTO samples (run_id, host, profile, scenario, mount, rep, trial, metric, value, unit, timestamp, labels)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      try {
        for (const s of run.samples) {
          const labels = Object.fromEntries(scenarioLabels(s));
          insertSample.run([
            m.runId,
            s.host,
            s.profile,
            s.scenario,
            s.mount,
            s.rep,
            s.trial,
            s.metric,
            s.value,
            s.unit,
            s.timestamp,
            JSON.stringify(labels),
          ]);
        }
      } finally {
        insertSample.free();
      }
    });
  }

  runs(lab?: string): HistoryRun[] {
    return rows<HistoryRun>(
      this.current(),
      `SELECT r.*, (SELECT COUNT(*) FROM samples s WHERE s.run_id = r.run_id) AS samples
       FROM runs r ${lab ? 'WHERE r.lab = ?' : ''} ORDER BY r.run_id`,
      lab ? [lab] : [],
    );
  }

  run(runId: string): HistoryRun | undefined {
    return this.runs().find((r) => r.run_id === runId);
  }

  /**
   * The good runs of the same setup as `run` (lab, target, host → profile,
   * scenario parameters) that started before it, newest first. Good: it
   * finished every trial it planned (nothing failed, not interrupted) and
   * recorded samples.
   */
  earlierGoodRuns(run: HistoryRun): HistoryRun[] {
    return this.runs(run.lab)
      .filter(
        (r) =>
          r.run_id < run.run_id &&
          r.target === run.target &&
          hostSetKey(r.hosts) === hostSetKey(run.hosts) &&
          sameScenarios(r, run) &&
          isGood(r),
      )
      .reverse();
  }

  /**
   * Records a nightly comparison's verdict: a flagged run is left out of
   * later baselines; the cells it flagged (names as cellName) are kept for
   * the trend page.
   */
  judged(runId: string, regressed: boolean, cells: readonly string[] = []): void {
    this.change((db) =>
      db.run('UPDATE runs SET regressed = ?, regressed_cells = ? WHERE run_id = ?', [
        regressed ? 1 : 0,
        JSON.stringify([...cells].sort()),
        runId,
      ]),
    );
  }

  /** Marks a run as the deliberate new baseline (`layerlab history accept`). */
  accept(runId: string, at: string): void {
    this.change((db) => db.run('UPDATE runs SET accepted_at = ? WHERE run_id = ?', [at, runId]));
  }

  /** A run's samples as samples.ndjson had them (scenario labels in their order). */
  samples(runId: string): Sample[] {
    return rows<SampleRow>(
      this.current(),
      'SELECT host, profile, scenario, mount, rep, trial, metric, value, unit, timestamp, labels FROM samples WHERE run_id = ? ORDER BY rowid',
      [runId],
    ).map(
      ({ labels, ...core }): Sample => ({
        run: runId,
        ...core,
        ...(labels ? (JSON.parse(labels) as Record<string, string | number>) : {}),
      }),
    );
  }

  close(): void {
    this.db.close();
  }
}

/** The rows of a query, each as an object of its columns. */
function rows<T>(db: Database, sql: string, params: BindParams = []): T[] {
  const statement = db.prepare(sql, params);
  try {
    const out: T[] = [];
    while (statement.step()) out.push(statement.getAsObject() as T);
    return out;
  } finally {
    statement.free();
  }
}

/** A samples row: the core labels as columns, the scenario's own as JSON. */
interface SampleRow {
  host: string;
  profile: string;
  scenario: string;
  mount: string;
  rep: number;
  trial: string;
  metric: string;
  value: number;
  unit: string;
  timestamp: string;
  labels: string | null;
}

/** A host set (JSON host → profile) in one spelling, whatever order its keys were written in. */
export function hostSetKey(hosts: string | null): string {
  if (!hosts) return '';
  const entries = Object.entries(JSON.parse(hosts) as Record<string, string>);
  return JSON.stringify(Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
}

/** JSON with every object's keys sorted: one spelling per value. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Ran the same scenario parameters (a fio size of 8M is not a baseline for
 * 2G). Runs migrated from history version 1 did not record them: unknown
 * matches, rather than leaving a lab without a baseline after an upgrade.
 */
function sameScenarios(a: HistoryRun, b: HistoryRun): boolean {
  if (a.scenarios === null || b.scenarios === null) return true;
  return canonical(JSON.parse(a.scenarios)) === canonical(JSON.parse(b.scenarios));
}

/** A run that finished what it planned and measured something: fit to be a baseline. */
export function isGood(r: HistoryRun): boolean {
  return r.failed === 0 && r.stopped_by !== 'interrupted' && r.samples > 0;
}

export interface HistoryRun {
  run_id: string;
  lab: string;
  started_at: string | null;
  git_revision: string | null;
  target: string | null;
  trials: number | null;
  done: number | null;
  failed: number | null;
  wall_seconds: number | null;
  stopped_by: string | null;
  /** JSON object host → profile, keys sorted (null only if a migrated run had no samples). */
  hosts: string | null;
  /** JSON of the lab's scenario parameters (null for runs recorded before history version 2). */
  scenarios: string | null;
  /** JSON ComparisonKey (comparison-key.ts); null for runs recorded before history version 3. */
  env_key: string | null;
  /** 1 flagged as regressed by its nightly comparison, 0 not, null not judged. */
  regressed: number | null;
  /** When a person accepted it as the new baseline (ISO time), or null. */
  accepted_at: string | null;
  /** JSON array of the cells its nightly comparison flagged (null: not judged, or judged before history version 4). */
  regressed_cells: string | null;
  samples: number;
}
