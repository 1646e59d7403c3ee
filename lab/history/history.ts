import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { LoadedRun } from '../record/load.js';
import { scenarioLabels } from '../record/samples.js';

/**
 * Run history: every run's samples in one SQLite database under results/,
 * so nightly runs can be listed and compared over time. Written at report
 * time; re-reporting a run replaces its rows (one transaction).
 */
export class History {
  private readonly db: Database.Database;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS runs (
        run_id TEXT PRIMARY KEY,
        lab TEXT NOT NULL,
        started_at TEXT,
        git_revision TEXT,
        target TEXT,
        trials INTEGER,
        done INTEGER,
        failed INTEGER,
        wall_seconds REAL,
        stopped_by TEXT
      );
      CREATE TABLE IF NOT EXISTS samples (
        run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
        host TEXT, profile TEXT, scenario TEXT, mount TEXT, rep INTEGER, trial TEXT,
        metric TEXT, value REAL, unit TEXT, timestamp TEXT,
        labels TEXT
      );
      CREATE INDEX IF NOT EXISTS samples_run ON samples(run_id);
    `);
  }

  static forResults(resultsRoot: string): History {
    return new History(join(resultsRoot, 'history.sqlite'));
  }

  record(run: LoadedRun): void {
    const m = run.manifest as LoadedRun['manifest'] & {
      startedAt?: string;
      gitRevision?: string;
      inventory?: { target?: string };
    };
    const insertRun = this.db.prepare(
      'INSERT INTO runs VALUES (@run_id, @lab, @started_at, @git_revision, @target, @trials, @done, @failed, @wall_seconds, @stopped_by)',
    );
    const insertSample = this.db.prepare('INSERT INTO samples VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM samples WHERE run_id = ?').run(m.runId);
      this.db.prepare('DELETE FROM runs WHERE run_id = ?').run(m.runId);
      insertRun.run({
        run_id: m.runId,
        lab: m.lab.name,
        started_at: m.startedAt ?? null,
        git_revision: m.gitRevision ?? null,
        target: m.inventory?.target ?? null,
        trials: run.summary?.trials ?? null,
        done: run.summary?.done ?? null,
        failed: run.summary?.failed ?? null,
        wall_seconds: run.summary?.wallSeconds ?? null,
        stopped_by: run.summary?.stoppedBy ?? null,
      });
      for (const s of run.samples) {
        const labels = Object.fromEntries(scenarioLabels(s));
        insertSample.run(
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
        );
      }
    })();
  }

  runs(lab?: string): HistoryRun[] {
    const rows = this.db
      .prepare(
        `SELECT r.*, (SELECT COUNT(*) FROM samples s WHERE s.run_id = r.run_id) AS samples
         FROM runs r ${lab ? 'WHERE r.lab = ?' : ''} ORDER BY r.run_id`,
      )
      .all(...(lab ? [lab] : [])) as HistoryRun[];
    return rows;
  }

  close(): void {
    this.db.close();
  }
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
  samples: number;
}
