import type { ComparisonRow } from '../../analyze/comparison-rows.js';
import { EQUIVALENCE_MARGIN, MIN_RUNS, withinMargin } from '../../analyze/verdict.js';
import { VM_LOCAL_MOUNTS, driverOf, measured, rowText, rowsOf } from '../../report/claim-rules.js';
import type { ClaimAnswer, ClaimContext, ScenarioReport } from '../../report/model.js';
import { paragraph, prose } from '../../report/model.js';
import { metricTable } from '../../report/tables.js';
import { FIO_JOBS } from './parse.js';
import { FIO_SEED_PARAMETERS } from './seed.js';

/** Equivalence bounds as "-9%" / "10%". */
const bound = (x: number) => `${((x - 1) * 100).toFixed(0)}%`;

/** The comparison whose 90% interval reaches furthest from 1 (what the run could not rule out). */
function widestOf(rows: readonly ComparisonRow[]): { width: number; row: ComparisonRow } {
  return rows.reduce(
    (w, r) => {
      const width = Math.max(
        Math.abs(Math.log(r.result.lo90 ?? 0)),
        Math.abs(Math.log(r.result.hi90 ?? Number.POSITIVE_INFINITY)),
      );
      return width > w.width ? { width, row: r } : w;
    },
    { width: 0, row: rows[0] as ComparisonRow },
  );
}

/**
 * 003: no consistent throughput gap between volume, bind and layer on the
 * same disk — an equivalence statement: every 90% interval (two one-sided
 * tests at 5%) within ±EQUIVALENCE_MARGIN. Contradicted by a difference
 * whose whole 95% interval lies beyond the margin; otherwise not shown, with
 * the widest interval (what this run could not rule out). Not on
 * devicemapper hosts: their layers are in the thin pool on the data disk,
 * their volumes and bind sources on the root disk.
 */
function noMountGap({ analysis, lab }: ClaimContext): ClaimAnswer | undefined {
  const driver = driverOf(lab);
  const rows = rowsOf(analysis, 'fio').filter(
    (r) =>
      measured(r) &&
      r.axis === 'mount' &&
      driver.get(r.within) !== 'devicemapper' &&
      r.metric.name === 'bw' &&
      VM_LOCAL_MOUNTS.includes(r.a) &&
      VM_LOCAL_MOUNTS.includes(r.b),
  );
  if (!rows.length) return undefined;
  const margin = EQUIVALENCE_MARGIN;
  const equivalent = rows.filter((r) => withinMargin(r.result, margin));
  const beyond = rows.filter(
    (r) =>
      (r.result.verdict === 'a-better' || r.result.verdict === 'b-better') &&
      ((r.result.lo ?? 0) > 1 + margin || (r.result.hi ?? Number.POSITIVE_INFINITY) < 1 / (1 + margin)),
  );
  const claim = `no fio throughput gap larger than ±${(margin * 100).toFixed(0)}% (ratio ${(1 / (1 + margin)).toFixed(2)}–${(1 + margin).toFixed(2)}) between a named volume, a bind mount and the container layer on the same disk (seed: no clear gap)`;
  const evidence = [
    `${rows.length} bandwidth comparisons between layer, volume and bind on the same host: ${equivalent.length} within ±${(margin * 100).toFixed(0)}% (90% interval), ${beyond.length} with a difference beyond it (95% interval, family-controlled)`,
    ...beyond.map(rowText),
  ];
  let answer: ClaimAnswer['answer'] = 'not shown';
  if (beyond.length) answer = 'contradicted';
  else if (equivalent.length === rows.length) answer = 'confirmed';
  else {
    const widest = widestOf(rows);
    const r = widest.row.result;
    evidence.push(
      Number.isFinite(widest.width)
        ? `the widest 90% interval, ${bound(r.lo90 as number)} to ${bound(r.hi90 as number)} (${rowText(widest.row)}), reaches beyond ±${(margin * 100).toFixed(0)}%: this run cannot rule out a gap of that size`
        : `at ${r.nA} vs ${r.nB} runs the intervals are unbounded: this run cannot rule out any gap (${MIN_RUNS} per side bound them)`,
    );
  }
  return { seed: '003', claim, answer, evidence };
}

export const fioReport: ScenarioReport = {
  section: (ctx) => ({
    blocks: [
      paragraph(
        prose(
          'Bandwidth is fio `bw` in KiB/s (1 KiB = 1024 bytes); latency is completion latency (clat) in microseconds.',
        ),
      ),
    ],
    sections: metricTable(ctx, { label: 'job', title: 'job', order: FIO_JOBS.map((j) => j.name) }, [
      { metric: 'bw', title: 'bandwidth KiB/s' },
      { metric: 'iops', title: 'IOPS' },
      { metric: 'clat_p99', title: 'clat p99 µs' },
    ]),
  }),
  claims: [{ position: 20, answer: noMountGap, seedParameters: FIO_SEED_PARAMETERS }],
};
