import type { Database } from 'sql.js';
import { UserError } from '../errors.js';
import { inTransaction } from './sqlite-file.js';

/**
 * Versions of results/history.sqlite (kept in SQLite's `user_version`):
 * - 1: runs and samples, written up to 0cbdd09 (user_version still 0).
 * - 2: runs also record their host set (`hosts`: host → profile, JSON) and
 *   the lab's scenario parameters, so a night can find the last good run of
 *   the same setup without its run folder. A version-1 file is migrated in
 *   place (its host sets are read back from its own samples).
 * - 3: runs also record their comparison key (`env_key`: per host, the
 *   environment facts a comparison is only fair across, JSON), the verdict
 *   of their nightly comparison (`regressed`: 1 flagged, 0 not, NULL not
 *   judged) and when a person accepted them as the new baseline
 *   (`accepted_at`). Migrated runs have none of the three: unknown.
 * - 4: runs also record which cells their nightly comparison flagged
 *   (`regressed_cells`: JSON array of scenario/host/mount/series/metric), so
 *   a trend marks the cells that regressed, not every cell of a flagged
 *   night. Migrated runs: NULL (unknown).
 */
export const HISTORY_VERSION = 4;

const CREATE_V4 = `
  CREATE TABLE runs (
    run_id TEXT PRIMARY KEY,
    lab TEXT NOT NULL,
    started_at TEXT,
    git_revision TEXT,
    target TEXT,
    trials INTEGER,
    done INTEGER,
    failed INTEGER,
    wall_seconds REAL,
    stopped_by TEXT,
    hosts TEXT,
    scenarios TEXT,
    env_key TEXT,
    regressed INTEGER,
    accepted_at TEXT,
    regressed_cells TEXT
  );
  CREATE TABLE samples (
    run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    host TEXT, profile TEXT, scenario TEXT, mount TEXT, rep INTEGER, trial TEXT,
    metric TEXT, value REAL, unit TEXT, timestamp TEXT,
    labels TEXT
  );
  CREATE INDEX samples_run ON samples(run_id);
  CREATE INDEX runs_lab ON runs(lab, run_id);
`;

/** Version 1 → 2: two columns, filled from what the file already holds. */
const MIGRATE_1_TO_2 = `
  ALTER TABLE runs ADD COLUMN hosts TEXT;
  ALTER TABLE runs ADD COLUMN scenarios TEXT;
  UPDATE runs SET hosts = (
    SELECT json_group_object(host, profile) FROM (
      SELECT DISTINCT host, profile FROM samples WHERE samples.run_id = runs.run_id ORDER BY host
    )
  );
  CREATE INDEX IF NOT EXISTS runs_lab ON runs(lab, run_id);
`;

/** Version 2 → 3: three columns, unknown (NULL) for the runs already there. */
const MIGRATE_2_TO_3 = `
  ALTER TABLE runs ADD COLUMN env_key TEXT;
  ALTER TABLE runs ADD COLUMN regressed INTEGER;
  ALTER TABLE runs ADD COLUMN accepted_at TEXT;
`;

/** Version 3 → 4: one column, unknown (NULL) for the runs already there. */
const MIGRATE_3_TO_4 = `
  ALTER TABLE runs ADD COLUMN regressed_cells TEXT;
`;

function hasTable(db: Database, name: string): boolean {
  return db.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]).length > 0;
}

/**
 * Brings the database (`path` names it in messages) to HISTORY_VERSION:
 * creates its tables, migrates an older one in one transaction, or refuses
 * a newer one (exit 2, naming both versions) rather than writing rows an
 * older reader would misread. True when it changed the database (the
 * caller writes it back).
 */
export function migrate(db: Database, path: string): boolean {
  const stored = Number(db.exec('PRAGMA user_version')[0]?.values[0]?.[0] ?? 0);
  const version = stored === 0 && hasTable(db, 'runs') ? 1 : stored;
  if (version > HISTORY_VERSION) {
    throw new UserError(
      `${path} is history version ${version}, written by a newer layerlab; this one reads up to version ${HISTORY_VERSION}. Run the newer layerlab, or move the file aside to start a new history.`,
    );
  }
  if (version === HISTORY_VERSION) return false;
  inTransaction(db, () => {
    if (version === 0) db.exec(CREATE_V4);
    if (version === 1) db.exec(MIGRATE_1_TO_2);
    if (version >= 1 && version <= 2) db.exec(MIGRATE_2_TO_3);
    if (version >= 1 && version <= 3) db.exec(MIGRATE_3_TO_4);
    db.exec(`PRAGMA user_version = ${HISTORY_VERSION}`);
  });
  return true;
}
