import { z } from 'zod';
import { MOUNT_KIND_NAMES } from '../../catalog.js';
import { parseSize } from '../../util/size.js';
import { sizeParam } from '../params.js';
import type { Scenario } from '../types.js';
import { parseDbImport } from './parse.js';
import { dbImportReport } from './report.js';

/** The generator's prose compresses about 2.7:1 with gzip -6 (measured: 3,000,000 B of SQL → 1,104,300 B). */
const GZIP_RATIO = 2.7;

const params = z
  .object({
    /** About this many bytes of gzip-compressed dump (seed 000: a 10 MB MediaWiki dump). */
    size: sizeParam(64 * 1024, 8 * 1024 ** 3)
      .default('10M')
      .describe('about this much gzip-compressed dump'),
  })
  .strict()
  .describe('enables db-import (seed 000)');

export type DbImportParams = z.output<typeof params>;

const sqlBytes = (p: DbImportParams) => Math.round((parseSize(p.size) ?? 0) * GZIP_RATIO);

export const dbImport: Scenario<DbImportParams> = {
  name: 'db-import',
  seed: '000',
  summary: 'db-import: a gzip MediaWiki-like SQL dump imported into MariaDB, datadir on each mount kind',
  params,
  mounts: MOUNT_KIND_NAMES, // every kind, the shared folders included
  toolImages: ['mariadb'],
  rawFile: 'db-import.tsv',
  matrixMetric: 'seconds',
  metrics: [
    { name: 'seconds', unit: 's', better: 'lower', description: 'wall time of the import alone', compare: true },
    { name: 'rows_per_second', unit: 'rows/s', better: 'higher', description: 'rows imported per second' },
    { name: 'sql_mb_per_second', unit: 'MB/s', better: 'higher', description: 'SQL text imported per second (10^6 B)' },
    { name: 'dump_bytes', unit: 'B', better: 'lower', description: 'size of the gzip dump' },
  ],
  guestEnv: (p) => ({ LL_P_SQL_BYTES: String(sqlBytes(p)) }),
  // Copying the datadir and starting the server (~22 s under TCG; the first trial on a host
  // also runs mariadb-install-db) plus about 0.1 MB of SQL per second (seeds-tcg,
  // run 20261202-095908-seeds-tcg-7da1: 25.2 s a trial for 0.35 MB of SQL).
  expectedSeconds: (p) => 22 + sqlBytes(p) / 100_000,
  // InnoDB's files (ibdata, logs: ~110 MB) plus the data, about 2x the SQL text, and the dump.
  diskBytes: (p) => 160 * 1024 ** 2 + sqlBytes(p) * 3,
  parse: parseDbImport,
  report: dbImportReport,
};
