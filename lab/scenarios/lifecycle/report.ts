import type { ComparisonRow } from '../../analyze/comparison-rows.js';
import { compare } from '../../analyze/verdict.js';
import { driverOf, measured, ordered, rowsOf } from '../../report/claim-rules.js';
import { fmt } from '../../report/format.js';
import type {
  Cell,
  ClaimAnswer,
  ClaimContext,
  ClaimRule,
  ScenarioReport,
  Section,
  SectionContext,
} from '../../report/model.js';
import { paragraph, plain, prose, table } from '../../report/model.js';
import { metricTable } from '../../report/tables.js';
import { GROWTH, diskSection, growthSamples } from './disk-report.js';
import { DISK_METRICS } from './disk.js';
import { LIFECYCLE_PHASES } from './parse.js';
import { LIFECYCLE_SEED_FIGURES, LIFECYCLE_SEED_PARAMETERS, type PhaseFigures } from './seed.js';

const {
  run: seedRun,
  rm: seedRm,
  inspect: seedInspect,
  stop: seedStop,
  install: seedInstall,
  remove: seedRemove,
} = LIFECYCLE_SEED_FIGURES;

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

/** "18.3 vs 2.7 s" (the seed's seconds of a phase on devicemapper and on OverlayFS). */
const seedSeconds = (f: PhaseFigures) =>
  `${fmt(f.devicemapper.value)} vs ${fmt(f.overlay2.value)} s, ${fmt(seedFactor(f))}×`;

/** devicemapper slower than overlay2 in the given phases, each held to the seed's own factor. */
function slowerIn(phases: readonly (keyof typeof LIFECYCLE_SEED_FIGURES)[], claim: string) {
  return ({ analysis, lab }: ClaimContext): ClaimAnswer | undefined => {
    const rows = driverRows(rowsOf(analysis, 'lifecycle'), driverOf(lab)).filter(({ row }) =>
      (phases as readonly string[]).includes(row.series),
    );
    return ordered(
      '004',
      claim,
      rows.map(({ row, dm }) => ({
        row,
        better: row.a === dm ? row.b : row.a,
        seedFactor: seedFactor(LIFECYCLE_SEED_FIGURES[row.series as keyof typeof LIFECYCLE_SEED_FIGURES]),
      })),
    );
  };
}

/** 004: `docker inspect --size` slower on devicemapper (the seed doubted the case itself, line 50). */
const inspectSlower = slowerIn(
  ['inspect'],
  `devicemapper (direct-lvm) is slower than overlay2 at \`docker inspect --size\` (seed: one container, ${seedSeconds(seedInspect)}, Docker 1.10; here every container of the run at once)`,
);

/** 004: `docker stop` of the ten containers slower on devicemapper. */
const stopSlower = slowerIn(
  ['stop'],
  `devicemapper (direct-lvm) is slower than overlay2 at stopping the containers (seed: 10 containers, ${seedSeconds(seedStop)}, Docker 1.10)`,
);

/**
 * 004: changing packages in five containers at once slower on devicemapper:
 * the seed's two ansible playbooks (register and install, 1.05×; downgrade,
 * 1.52×), here dpkg -i and dpkg -P of the same packages.
 */
const churnSlower = slowerIn(
  ['install', 'remove'],
  `devicemapper (direct-lvm) is slower than overlay2 at changing packages in five containers at once (seed: ansible registering and installing Katello Agent ${seedSeconds(seedInstall)}, downgrading packages ${seedSeconds(seedRemove)}; here dpkg -i and dpkg -P)`,
);

/** The growth metric as the disk claim compares it. */
const GROWTH_METRIC = {
  name: GROWTH,
  unit: DISK_METRICS.data_root_bytes,
  better: 'lower',
  description: 'bytes the driver holds after the run phase beyond the trial start',
} as const;

/**
 * 004 (line 3, the article's reason for being): devicemapper direct-lvm
 * consumes more disk for many small containers than OverlayFS. Here: what
 * each driver holds once the containers run, beyond the trial's start (the
 * disk table's "held since start" after the run phase: the thin pool's data
 * used on devicemapper, du of the data root on overlay2), per trial, tested
 * host against host. These values are not among the report's compared
 * metrics, so each comparison stands on its own (a family of one), and the
 * seed gave no figure to hold the size to.
 */
function devicemapperHoldsMore({ analysis, lab }: ClaimContext): ClaimAnswer | undefined {
  const driver = driverOf(lab);
  const growth = growthSamples(analysis.find((a) => a.name === 'lifecycle')?.samples ?? []).filter(
    (s) => s.phase === 'run',
  );
  const valuesOf = (host: string) => growth.filter((s) => s.host === host).map((s) => s.value);
  const hostsOf = (d: string) => lab.hosts.filter((h) => driver.get(h.name) === d).map((h) => h.name);
  const rows = hostsOf('devicemapper').flatMap((dm) =>
    hostsOf('overlay2').map(
      (ov): ComparisonRow => ({
        axis: 'profile',
        within: 'none',
        a: dm,
        b: ov,
        series: 'run',
        metric: GROWTH_METRIC,
        result: compare(valuesOf(dm), valuesOf(ov), 'lower', { nameA: dm }),
      }),
    ),
  );
  const answer = ordered(
    '004',
    'devicemapper (direct-lvm) holds more disk than overlay2 once the containers run (seed: "too big disk consumption when on Devicemapper direct LVM" for very many small containers; no figure)',
    rows.map((row) => ({ row, better: row.b })),
  );
  return (
    answer && {
      ...answer,
      evidence: [
        ...answer.evidence,
        'each comparison on its own (a family of one): disk use is not among the compared metrics',
      ],
    }
  );
}

/** The hosts the seed 004 claims judge: every devicemapper host and every overlay2 host. */
function driverHosts({ lab }: ClaimContext): string[] {
  const driver = driverOf(lab);
  return lab.hosts.filter((h) => ['devicemapper', 'overlay2'].includes(driver.get(h.name) ?? '')).map((h) => h.name);
}

const rule = (position: number, answer: ClaimRule['answer']): ClaimRule => ({
  position,
  answer,
  seedParameters: LIFECYCLE_SEED_PARAMETERS,
  hosts: driverHosts,
});

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
  claims: [
    rule(10, devicemapperSlower),
    rule(11, inspectSlower),
    rule(12, stopSlower),
    rule(13, churnSlower),
    rule(14, devicemapperHoldsMore),
  ],
};
