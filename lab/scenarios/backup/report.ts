import type { ScenarioReport } from '../../report/model.js';
import { paragraph, prose } from '../../report/model.js';
import { metricTable } from '../../report/tables.js';
import { BACKUP_METHODS } from './parse.js';

export const backupReport: ScenarioReport = {
  section: (ctx) => ({
    blocks: [
      paragraph(
        prose(
          '`tar czf` of the same dataset, the same tar and gzip binaries in all three methods (checked by sha256), in a shuffled order per trial, page cache dropped before each.',
        ),
      ),
    ],
    sections: metricTable(ctx, { label: 'method', title: 'method', order: BACKUP_METHODS }, [
      { metric: 'seconds', title: 'seconds' },
      { metric: 'archive_bytes', title: 'archive bytes' },
      { metric: 'files', title: 'files listed' },
    ]),
  }),
  // No seed claim rests on the backup methods' numbers.
  claims: [],
};
