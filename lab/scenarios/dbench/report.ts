import { VM_LOCAL_MOUNTS, hostshareRows, ordered, sharedSide } from '../../report/claim-rules.js';
import type { ClaimAnswer, ClaimContext, ScenarioReport } from '../../report/model.js';
import { paragraph, prose } from '../../report/model.js';
import { metricTable } from '../../report/tables.js';
import { DBENCH_SEED_FIGURES, DBENCH_SEED_PARAMETERS } from './seed.js';

const { containerFs, sharedFolder } = DBENCH_SEED_FIGURES;

/** 002: dbench on a folder mounted from the VM's host is much slower than on the container's own file system. */
function sharedFolderSlower({ analysis }: ClaimContext): ClaimAnswer | undefined {
  return ordered(
    '002',
    `dbench on a folder shared from the VM's host (a hostshare kind) is much slower than on VM-local storage (seed: boot2docker's vboxsf mount ${sharedFolder.value.toFixed(2)} MB/s vs its container file system ${containerFs.value.toFixed(1)} MB/s)`,
    hostshareRows(analysis, 'dbench', 'throughput', VM_LOCAL_MOUNTS).map((row) => ({
      row,
      better: row.a === sharedSide(row) ? row.b : row.a,
      seedFactor: containerFs.value / sharedFolder.value,
    })),
  );
}

export const dbenchReport: ScenarioReport = {
  section: (ctx) => ({
    blocks: [
      paragraph(
        prose(
          'Throughput in dbench MB/s (10^6 bytes/s) and the worst latency of the run; per-operation counts and latencies are in samples.ndjson.',
        ),
      ),
    ],
    sections: metricTable({ ...ctx, samples: ctx.samples.filter((s) => s.op === 'all') }, undefined, [
      { metric: 'throughput', title: 'throughput MB/s' },
      { metric: 'max_latency', title: 'max latency ms' },
    ]),
  }),
  claims: [{ position: 40, answer: sharedFolderSlower, seedParameters: DBENCH_SEED_PARAMETERS }],
};
