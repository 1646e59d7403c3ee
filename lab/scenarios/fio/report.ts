import { EQUIVALENCE_MARGIN } from '../../analyze/verdict.js';
import { VM_LOCAL_MOUNTS, driverOf, equivalent, marginText, rowsOf, stackHosts } from '../../report/claim-rules.js';
import type { ClaimAnswer, ClaimContext, ClaimRule, ScenarioReport } from '../../report/model.js';
import { paragraph, prose } from '../../report/model.js';
import { metricTable } from '../../report/tables.js';
import { FIO_JOBS } from './parse.js';
import { FIO_SEED_FIGURES, FIO_SEED_PARAMETERS, SEED_003_PROFILES } from './seed.js';

/**
 * The hosts a seed 003 fio claim judges: those on the seed's own stack
 * (containerd-ext4) when the lab has any, else every host but devicemapper
 * ones (their layers are in the thin pool on the data disk, their volumes
 * and bind sources on the root disk: not "the same disk").
 */
function fioHosts({ lab }: ClaimContext): string[] {
  const driver = driverOf(lab);
  return stackHosts(lab, SEED_003_PROFILES, (h) => driver.get(h.name) !== 'devicemapper');
}

/** Mount comparisons of one metric between layer, volume and bind on the judged hosts. */
function mountRows(ctx: ClaimContext, metric: string) {
  const hosts = fioHosts(ctx);
  return rowsOf(ctx.analysis, 'fio').filter(
    (r) =>
      r.axis === 'mount' &&
      hosts.includes(r.within) &&
      r.metric.name === metric &&
      VM_LOCAL_MOUNTS.includes(r.a) &&
      VM_LOCAL_MOUNTS.includes(r.b),
  );
}

/**
 * 003: no consistent throughput gap between volume, bind and layer on the
 * same disk — an equivalence statement (claim-rules' equivalent): every 90%
 * interval within ±EQUIVALENCE_MARGIN.
 */
function noMountGap(ctx: ClaimContext): ClaimAnswer | undefined {
  return equivalent(
    '003',
    `no fio throughput gap larger than ${marginText(EQUIVALENCE_MARGIN)} between a named volume, a bind mount and the container layer on the same disk (seed: no clear gap)`,
    mountRows(ctx, 'bw'),
    'bandwidth comparisons between layer, volume and bind on the same host',
  );
}

const { randreadP99Volume, randreadP99Layer } = FIO_SEED_FIGURES;

/**
 * 003: nor in latency — the seed's "no clear gap" covered its p99 latency
 * rows too, though their medians differed most (random read: 1057 µs on the
 * volume, 1548 µs on the layer, ranges overlapping). The same equivalence
 * statement on fio's p99 completion latency.
 */
function noMountLatencyGap(ctx: ClaimContext): ClaimAnswer | undefined {
  return equivalent(
    '003',
    `no fio p99 completion-latency gap larger than ${marginText(EQUIVALENCE_MARGIN)} between a named volume, a bind mount and the container layer on the same disk (seed: no clear gap, though its random-read p99 medians were ${randreadP99Volume.value} µs on the volume and ${randreadP99Layer.value} µs on the layer)`,
    mountRows(ctx, 'clat_p99'),
    'p99 latency comparisons between layer, volume and bind on the same host',
  );
}

const rule = (position: number, answer: ClaimRule['answer']): ClaimRule => ({
  position,
  answer,
  seedParameters: FIO_SEED_PARAMETERS,
  hosts: fioHosts,
});

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
  claims: [rule(20, noMountGap), rule(21, noMountLatencyGap)],
};
