import { hostshareRows, ordered, sharedSide } from '../../report/claim-rules.js';
import type { ClaimAnswer, ClaimContext, ScenarioReport } from '../../report/model.js';
import { paragraph, prose } from '../../report/model.js';
import { metricTable } from '../../report/tables.js';
import { DB_IMPORT_SEED_FIGURES, DB_IMPORT_SEED_PARAMETERS } from './seed.js';

const { namedVolume, bindMount } = DB_IMPORT_SEED_FIGURES;

/** Seconds as the seed's `time` printed them, to the second: "4m14s". */
const minutes = (s: number) => `${Math.floor(Math.round(s) / 60)}m${Math.round(s) % 60}s`;

/**
 * 000: the dump import into a named volume (on the VM's disk) is much slower
 * than into a bind-mounted host folder — the seed's direction (Docker for Mac
 * 1.12: 4m14s vs 20s), the opposite of 002's.
 */
function namedVolumeSlower({ analysis }: ClaimContext): ClaimAnswer | undefined {
  return ordered(
    '000',
    `the MySQL dump import into a named volume (on the VM's disk) is much slower than into a bind-mounted folder of the VM's host (a hostshare kind) (seed: ${minutes(namedVolume.value)} vs ${bindMount.value.toFixed(1)} s, Docker for Mac 1.12)`,
    hostshareRows(analysis, 'db-import', 'seconds', ['volume']).map((row) => ({
      row,
      better: sharedSide(row),
      seedFactor: namedVolume.value / bindMount.value,
    })),
  );
}

export const dbImportReport: ScenarioReport = {
  section: (ctx) => ({
    blocks: [
      paragraph(
        prose(
          'The import alone (server started and ready before the clock starts), a fresh datadir per trial, row counts checked after each import.',
        ),
      ),
    ],
    sections: metricTable(ctx, undefined, [
      { metric: 'seconds', title: 'import seconds' },
      { metric: 'rows_per_second', title: 'rows/s' },
      { metric: 'sql_mb_per_second', title: 'SQL MB/s' },
    ]),
  }),
  claims: [{ position: 30, answer: namedVolumeSlower, seedParameters: DB_IMPORT_SEED_PARAMETERS }],
};
