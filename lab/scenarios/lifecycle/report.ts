import type { ComparisonRow } from '../../analyze/comparison-rows.js';
import { driverOf, measured, ordered, rowsOf } from '../../report/claim-rules.js';
import { fmt } from '../../report/format.js';
import type { Cell, ClaimAnswer, ClaimContext, ScenarioReport, Section, SectionContext } from '../../report/model.js';
import { paragraph, plain, prose, table } from '../../report/model.js';
import { metricTable } from '../../report/tables.js';
import { diskSection } from './disk-report.js';
import { LIFECYCLE_PHASES } from './parse.js';
import { LIFECYCLE_SEED_FIGURES, LIFECYCLE_SEED_PARAMETERS, type PhaseFigures } from './seed.js';

const { run: seedRun, rm: seedRm } = LIFECYCLE_SEED_FIGURES;

/** The seed's devicemapper seconds over its overlay seconds for a phase. */
const seedFactor = (f: PhaseFigures) => f.devicemapper.value / f.overlay2.value;

/** The lifecycle comparisons between a devicemapper host and an overlay2 host, with the devicemapper side. */
function driverRows(rows: readonly ComparisonRow[], driver: Map<string, string>): { row: ComparisonRow; dm: string }[] {
  return rows.flatMap((row) => {
    const pair = [driver.get(row.a), driver.get(row.b)].sort().join('/');
    if (row.axis !== 'profile' || pair !== 'devicemapper/overlay2') return [];
    return [{ row, dm: driver.get(row.a) === 'devicemapper' ? row.a : row.b }];
  });
}

/** 004: devicemapper slower than overlay2 to start and to remove containers. */
function devicemapperSlower({ analysis, lab }: ClaimContext): ClaimAnswer | undefined {
  const rows = driverRows(rowsOf(analysis, 'lifecycle'), driverOf(lab)).filter(
    ({ row }) => row.series === 'run' || row.series === 'rm',
  );
  return ordered(
    '004',
    `devicemapper (direct-lvm) is slower than overlay2 for starting (docker run) and removing (docker rm) containers (seed: 10 runs ${seedRun.devicemapper.value.toFixed(1)} vs ${seedRun.overlay2.value.toFixed(1)} s, 10 rms ${seedRm.devicemapper.value.toFixed(2)} vs ${seedRm.overlay2.value.toFixed(2)} s, Docker 1.10)`,
    rows.map(({ row, dm }) => ({
      row,
      better: row.a === dm ? row.b : row.a,
      seedFactor: seedFactor(row.series === 'run' ? seedRun : seedRm),
    })),
  );
}

const times = (x: number) => (Number.isFinite(x) ? `${fmt(x)}×` : '∞');

/** This run's devicemapper/overlay2 ratio of one phase with its 95% interval: "4.00× (3.80×–4.20×)". */
function ratioText(row: ComparisonRow, dm: string): string {
  const { ratio, lo, hi } = row.result;
  if (ratio === undefined || lo === undefined || hi === undefined) return '–';
  const [est, low, high] = row.a === dm ? [ratio, lo, hi] : [1 / ratio, 1 / hi, 1 / lo];
  return `${times(est)} (${times(low)}–${times(high)})`;
}

/** The seed's seconds of one phase on both drivers, and their ratio; the seed's job where it was another. */
function seedCell(phase: string): string {
  const f: PhaseFigures | undefined = LIFECYCLE_SEED_FIGURES[phase as keyof typeof LIFECYCLE_SEED_FIGURES];
  if (!f) return '–';
  const analogue = f.analogue ? `; the seed's phase: ${f.analogue}` : '';
  return `${fmt(f.devicemapper.value)} / ${fmt(f.overlay2.value)} s = ${times(seedFactor(f))}${analogue}`;
}

/**
 * The storage drivers phase by phase: every lifecycle comparison of a
 * devicemapper host with an overlay2 host (rows of the report's family, so
 * controlled with all the others), beside the seed's own seconds.
 */
function phaseByPhase({ lab, comparisons }: SectionContext): Section[] {
  // A host of the lab with no lifecycle samples (its trials failed) is no evidence.
  const rows = driverRows(comparisons.filter(measured), driverOf(lab)).sort(
    (x, y) =>
      LIFECYCLE_PHASES.indexOf(x.row.series as (typeof LIFECYCLE_PHASES)[number]) -
      LIFECYCLE_PHASES.indexOf(y.row.series as (typeof LIFECYCLE_PHASES)[number]),
  );
  if (!rows.length) return [];
  const cells = rows.map(({ row, dm }): Cell[] =>
    [
      row.series,
      seedCell(row.series),
      `${dm} / ${row.a === dm ? row.b : row.a}`,
      ratioText(row, dm),
      row.result.text,
    ].map(plain),
  );
  return [
    {
      level: 3,
      title: plain('devicemapper against overlay2, phase by phase'),
      blocks: [
        paragraph(
          prose(
            "Seconds on the devicemapper host over seconds on the overlay2 host, per phase (Hodges–Lehmann ratio, 95% interval), and the report's verdict on that comparison; the seed's column is seed 004's one timing per phase (OverlayFS on Docker 1.10).",
          ),
        ),
        table(
          ['phase', 'seed 004: devicemapper / overlay', 'this run: hosts', 'devicemapper / overlay2', 'verdict'],
          ['left', 'left', 'left', 'right', 'left'],
          cells,
        ),
      ],
    },
  ];
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
    sections: [
      // The timings alone: the disk values share the phase label (and add a start row) but have their own table.
      ...metricTable(
        { ...ctx, samples: ctx.samples.filter((s) => s.metric === 'seconds') },
        { label: 'phase', title: 'phase', order: LIFECYCLE_PHASES },
        [{ metric: 'seconds', title: 'seconds' }],
      ),
      ...phaseByPhase(ctx),
      ...diskSection(ctx),
    ],
  }),
  claims: [{ position: 10, answer: devicemapperSlower, seedParameters: LIFECYCLE_SEED_PARAMETERS }],
};
