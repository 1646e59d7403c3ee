import { driverOf, ordered, rowsOf } from '../../report/claim-rules.js';
import type { ClaimAnswer, ClaimContext, ScenarioReport } from '../../report/model.js';
import { paragraph, prose } from '../../report/model.js';
import { metricTable } from '../../report/tables.js';
import { LIFECYCLE_PHASES } from './parse.js';

/** 004: devicemapper slower than overlay2 to start and to remove containers. */
function devicemapperSlower({ analysis, lab }: ClaimContext): ClaimAnswer | undefined {
  const driver = driverOf(lab);
  const rows = rowsOf(analysis, 'lifecycle').filter((r) => {
    const pair = [driver.get(r.a), driver.get(r.b)].sort().join('/');
    return r.axis === 'profile' && pair === 'devicemapper/overlay2' && (r.series === 'run' || r.series === 'rm');
  });
  return ordered(
    '004',
    'devicemapper (direct-lvm) is slower than overlay2 for starting (docker run) and removing (docker rm) containers (seed: 10 runs 38.8 vs 7.5 s, 10 rms 2.29 vs 0.21 s, Docker 1.10)',
    rows.map((row) => ({
      row,
      better: driver.get(row.a) === 'overlay2' ? row.a : row.b,
      seedFactor: row.series === 'run' ? 38.8 / 7.5 : 2.29 / 0.21,
    })),
  );
}

export const lifecycleReport: ScenarioReport = {
  section: (ctx) => ({
    blocks: [
      paragraph(
        prose(
          'Wall seconds per phase over all its containers (seed 004 timed `for i in $(seq 10); do docker run -d …; done` the same way). install/remove: every churn container runs dpkg at once.',
        ),
      ),
    ],
    sections: metricTable(ctx, { label: 'phase', title: 'phase', order: LIFECYCLE_PHASES }, [
      { metric: 'seconds', title: 'seconds' },
    ]),
  }),
  claims: [{ position: 10, answer: devicemapperSlower }],
};
