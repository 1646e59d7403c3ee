import type { LabDefinition } from '../../definition/schema.js';
import {
  EBS_USD_PER_GB_MONTH,
  GP3_INCLUDED,
  HOURS_PER_MONTH,
  INSTANCE_TYPES,
  type InstanceTypeFacts,
  PRICES,
  PRICE_REGION,
  PUBLIC_IPV4_USD_PER_HOUR,
} from './instance-types.js';

type AwsSettings = LabDefinition['target']['aws'];

const MIB = 1024 ** 2;
const MB = 1e6;

/** The data volume's sustained IOPS as provisioned (gp2: 3 per GiB, 100 to 16000). */
function volumeIops(aws: AwsSettings, diskGiB: number): number | undefined {
  if (aws.volumeType === 'gp3') return aws.iops ?? GP3_INCLUDED.iops;
  if (aws.volumeType === 'io1' || aws.volumeType === 'io2') return aws.iops;
  if (aws.volumeType === 'gp2') return Math.min(16000, Math.max(100, 3 * diskGiB));
  return undefined;
}

/** The smallest non-burstable type in the table that sustains `mbps` and `iops`. */
function suggestion(mbps: number, iops: number): string {
  const fit = Object.entries(INSTANCE_TYPES)
    .filter(([, t]) => !t.burstableCpu && t.baselineMBps >= mbps && t.baselineIops >= iops)
    .sort(([, a], [, b]) => a.usdPerHour - b.usdPerHour)[0];
  return fit ? ` (e.g. ${fit[0]}: ${fit[1].baselineMBps} MB/s, ${fit[1].baselineIops} IOPS)` : '';
}

/**
 * Why a cloud lab would measure something else than its volumes: an instance
 * type whose sustained EBS bandwidth or IOPS is below what the volume is
 * provisioned for (fio then measures the instance's cap, and its burst
 * credits, which last 30 minutes a day), or a burstable CPU. Empty when the
 * hardware is honest.
 */
export function hardwareWarnings(lab: LabDefinition): string[] {
  const aws = lab.target.aws;
  const type = INSTANCE_TYPES[aws.instanceType];
  if (!type) {
    return [
      `cannot check instance type ${aws.instanceType}: no sustained EBS figures recorded for it (lab/targets/aws/instance-types.ts); compare its baseline with the volume on AWS's "Amazon EBS-optimized instance types" page`,
    ];
  }
  const warnings: string[] = [];
  if (type.burstableCpu) {
    warnings.push(
      `instance type ${aws.instanceType} is burstable: its CPU runs on credits that a long benchmark uses up, so late trials run slower than early ones; use a non-burstable type${suggestion(0, 0)}`,
    );
  }
  const mibps = aws.volumeType === 'gp3' ? (aws.throughput ?? GP3_INCLUDED.mibps) : undefined;
  const iops = Math.max(...lab.hosts.map((h) => volumeIops(aws, h.diskGiB) ?? 0));
  const needMBps = mibps === undefined ? 0 : (mibps * MIB) / MB;
  if (needMBps > type.baselineMBps) {
    warnings.push(
      `the ${aws.volumeType} volume's ${mibps} MiB/s (${needMBps.toFixed(1)} MB/s) exceeds ${aws.instanceType}'s sustained EBS throughput of ${type.baselineMBps} MB/s: the lab would measure the instance's cap, not the volume; use a larger type${suggestion(needMBps, iops)} or lower throughput`,
    );
  }
  if (iops > type.baselineIops) {
    warnings.push(
      `the ${aws.volumeType} volume's ${iops} IOPS exceed ${aws.instanceType}'s sustained EBS IOPS of ${type.baselineIops}: the lab would measure the instance's cap, not the volume; use a larger type${suggestion(needMBps, iops)} or lower iops`,
    );
  }
  return warnings;
}

export interface CostEstimate {
  usdPerHour: number;
  /** What the estimate leaves out, for the reader. */
  notes: string[];
}

/** Per hour: hosts × (instance + public IPv4) + data and root volumes prorated from GB-month. */
function hourly(lab: LabDefinition, type: InstanceTypeFacts): CostEstimate {
  const aws = lab.target.aws;
  const notes: string[] = [];
  const dataRate = EBS_USD_PER_GB_MONTH[aws.volumeType];
  const rootRate = EBS_USD_PER_GB_MONTH.gp3 ?? 0;
  const dataGiB = lab.hosts.reduce((sum, h) => sum + h.diskGiB, 0);
  const storagePerMonth = (dataRate ?? 0) * dataGiB + rootRate * aws.rootGiB * lab.hosts.length;
  if (dataRate === undefined) notes.push(`${aws.volumeType} storage not priced`);
  const extraIops = aws.volumeType === 'gp3' && (aws.iops ?? 0) > GP3_INCLUDED.iops;
  const extraThroughput = aws.volumeType === 'gp3' && (aws.throughput ?? 0) > GP3_INCLUDED.mibps;
  if (extraIops || extraThroughput || aws.volumeType === 'io1' || aws.volumeType === 'io2') {
    notes.push('provisioned IOPS/throughput above what the volume type includes not priced');
  }
  if (aws.spot) notes.push('spot hosts cost less than this on-demand price');
  const compute = lab.hosts.length * (type.usdPerHour + PUBLIC_IPV4_USD_PER_HOUR);
  return { usdPerHour: compute + storagePerMonth / HOURS_PER_MONTH, notes };
}

/**
 * The lab's cost per hour at on-demand list price, or why it cannot be
 * estimated (a type or region without recorded prices).
 */
export function costEstimate(lab: LabDefinition): CostEstimate | { unknown: string } {
  const aws = lab.target.aws;
  // Another region's prices differ: none is better than the wrong one.
  if (aws.region !== PRICE_REGION) {
    return {
      unknown: `no list prices recorded for region ${aws.region} (only ${PRICE_REGION}, as of ${PRICES.asOf}); see aws.amazon.com/ec2/pricing/on-demand`,
    };
  }
  const type = INSTANCE_TYPES[aws.instanceType];
  if (!type) return { unknown: `no list price recorded for instance type ${aws.instanceType}` };
  return hourly(lab, type);
}
