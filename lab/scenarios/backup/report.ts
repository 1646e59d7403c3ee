import { EQUIVALENCE_MARGIN } from '../../analyze/verdict.js';
import { equivalent, marginText, ordered, rowsOf } from '../../report/claim-rules.js';
import type { ClaimAnswer, ClaimContext, ScenarioReport } from '../../report/model.js';
import { paragraph, prose } from '../../report/model.js';
import { metricTable } from '../../report/tables.js';
import { seed003Hosts } from '../permissions/report.js';
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
function helperSlower(ctx: ClaimContext): ClaimAnswer | undefined {
  const hosts = seed003Hosts(ctx);
  const rows = rowsOf(ctx.analysis, 'backup').filter(
    (r) =>
      r.axis === 'series' && hosts.includes(r.within) && r.metric.name === 'seconds' && [r.a, r.b].includes(HELPER),
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

/**
 * 003: tar on the host of the bind directory and of the volume's _data took
 * about the same time (4.36 and 4.30 s median, 1.4% apart): an equivalence
 * statement, every 90% interval within ±EQUIVALENCE_MARGIN.
 */
function hostMethodsAlike(ctx: ClaimContext): ClaimAnswer | undefined {
  const hosts = seed003Hosts(ctx);
  const pair = ['host-bind', 'host-volume'];
  const rows = rowsOf(ctx.analysis, 'backup').filter(
    (r) =>
      r.axis === 'series' &&
      hosts.includes(r.within) &&
      r.metric.name === 'seconds' &&
      pair.includes(r.a) &&
      pair.includes(r.b),
  );
  return equivalent(
    '003',
    `tar czf from the host takes the same time, within ${marginText(EQUIVALENCE_MARGIN)}, of the bind directory and of the volume's _data (seed: ${seconds('host-bind')} and ${seconds('host-volume')} median, "about the same time")`,
    rows,
    "comparisons of the host's tar of the bind directory and of the volume's _data, per host",
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
  claims: [
    { position: 60, answer: helperSlower, seedParameters: BACKUP_SEED_PARAMETERS, hosts: seed003Hosts },
    { position: 61, answer: hostMethodsAlike, seedParameters: BACKUP_SEED_PARAMETERS, hosts: seed003Hosts },
  ],
};
