import { ordered, rowsOf } from '../../report/claim-rules.js';
import type { ClaimAnswer, ClaimContext, ScenarioReport } from '../../report/model.js';
import { paragraph, prose } from '../../report/model.js';
import { metricTable } from '../../report/tables.js';
import { BACKUP_METHODS } from './parse.js';
import { BACKUP_SEED_FIGURES, BACKUP_SEED_PARAMETERS } from './seed.js';

const HELPER = 'helper-container';
const seedSeconds = (method: string) => BACKUP_SEED_FIGURES[method as keyof typeof BACKUP_SEED_FIGURES]?.value;
const seconds = (method: string) => `${seedSeconds(method)?.toFixed(2)} s`;

/**
 * 003: archiving a volume through a helper container is slower than tar on
 * the host, of the bind directory or of the volume's _data — on each host,
 * the helper method against each host method (rows of the report's family).
 * The seed itself doubted the cause (its helper ran busybox tar); here all
 * three methods run the same binaries, so a gap is the container's.
 */
function helperSlower({ analysis }: ClaimContext): ClaimAnswer | undefined {
  const rows = rowsOf(analysis, 'backup').filter(
    (r) => r.axis === 'series' && r.metric.name === 'seconds' && [r.a, r.b].includes(HELPER),
  );
  return ordered(
    '003',
    `tar czf of a volume through a helper container is slower than from the host, of the bind directory or of the volume's _data (seed: ${seconds(HELPER)} vs ${seconds('host-bind')} and ${seconds('host-volume')} median, its helper running busybox tar)`,
    rows.map((row) => {
      const host = row.a === HELPER ? row.b : row.a;
      const factor = (seedSeconds(HELPER) ?? Number.NaN) / (seedSeconds(host) ?? Number.NaN);
      return { row, better: host, ...(Number.isFinite(factor) ? { seedFactor: factor } : {}) };
    }),
  );
}

export const backupReport: ScenarioReport = {
  section: (ctx) => ({
    blocks: [
      paragraph(
        prose(
          '`tar czf` of the same dataset, the same tar and gzip binaries in all three methods (checked by sha256), in a shuffled order per trial, page cache dropped before each. The methods are compared with each other on each host (Comparisons below).',
        ),
      ),
    ],
    sections: metricTable(ctx, { label: 'method', title: 'method', order: BACKUP_METHODS }, [
      { metric: 'seconds', title: 'seconds' },
      { metric: 'archive_bytes', title: 'archive bytes' },
      { metric: 'files', title: 'files listed' },
    ]),
  }),
  claims: [{ position: 60, answer: helperSlower, seedParameters: BACKUP_SEED_PARAMETERS }],
};
