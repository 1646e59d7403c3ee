/**
 * One drive's I/O as QEMU counted it since the VM started (QMP
 * `query-blockstats`): mean milliseconds per read and per write between QEMU
 * submitting a request and its completion, and the requests that failed.
 * What the disks' aio mode (target.local.diskAio) changes, seen from this
 * machine rather than from inside the guest.
 */
export interface DriveIo {
  readMs: number;
  writeMs: number;
  failed: number;
}

interface BlockStats {
  device?: string;
  stats?: Partial<
    Record<
      | 'rd_operations'
      | 'wr_operations'
      | 'rd_total_time_ns'
      | 'wr_total_time_ns'
      | 'failed_rd_operations'
      | 'failed_wr_operations',
      number
    >
  >;
}

/** `device` (a `-drive` id: root, data) of a query-blockstats answer; undefined when it is not there. */
export function driveIo(answer: unknown, device: string): DriveIo | undefined {
  const entry = Array.isArray(answer)
    ? (answer as BlockStats[]).find((e) => e?.device === device && e.stats)
    : undefined;
  if (!entry?.stats) return undefined;
  const s = entry.stats;
  const mean = (ns = 0, ops = 0) => (ops > 0 ? ns / ops / 1e6 : Number.NaN);
  return {
    readMs: mean(s.rd_total_time_ns, s.rd_operations),
    writeMs: mean(s.wr_total_time_ns, s.wr_operations),
    failed: (s.failed_rd_operations ?? 0) + (s.failed_wr_operations ?? 0),
  };
}
