/**
 * What an EC2 host can sustain to its EBS volumes, and what it costs: the
 * facts `validate` checks a cloud lab against (L0 catalog, no imports).
 *
 * EBS figures: AWS, "Amazon EBS-optimized instance types" (EC2 User Guide,
 * tables "EBS optimized by default"; as published in awsdocs/amazon-ec2-user-guide,
 * doc_source/ebs-optimized.md, May 2023). Types marked there with "*" burst to
 * their maximum for at most 30 minutes a day; the baseline is what a
 * benchmark that runs for hours gets. Throughput is MB/s (10^6 bytes, 128 KiB
 * I/O), IOPS at 16 KiB I/O. vCPUs: the same guide's instance type pages.
 *
 * Prices: on-demand list prices, Linux, eu-central-1 (Frankfurt, the
 * schema's default region), USD. AWS's own page (aws.amazon.com/ec2/pricing/on-demand,
 * aws.amazon.com/ebs/pricing) was not reachable from where this was written;
 * the figures are those of a published cost table that quotes eu-central-1
 * list prices (2026): check them there before relying on them. PRICES says
 * so in code, and validate's cost line names its region and date.
 *
 * A type without every figure is left out: validate says it cannot check it.
 */

export interface InstanceTypeFacts {
  vcpus: number;
  /** Sustained (baseline) EBS throughput, MB/s. */
  baselineMBps: number;
  /** Sustained (baseline) EBS IOPS. */
  baselineIops: number;
  /** Burstable CPU (T family): CPU credits decide the speed of long runs. */
  burstableCpu: boolean;
  /** On-demand list price per hour, USD, in PRICES.region as of PRICES.asOf. */
  usdPerHour: number;
}

/**
 * Which region and date every price in this file is for, and from where;
 * `validate` quotes it beside each estimate. A lab in another region gets
 * "price unknown", never these figures: list prices differ by region (up to
 * a fifth and more between Frankfurt and North Virginia).
 */
export const PRICES = {
  region: 'eu-central-1',
  /** The year the cost table quoted; the exact date was not recorded (copied in on 2026-12-04). */
  asOf: '2026',
  source: 'a published cost table quoting AWS list prices, not checked against aws.amazon.com/ec2/pricing',
} as const;

/** The region the prices below are for. */
export const PRICE_REGION = PRICES.region;

export const INSTANCE_TYPES: Readonly<Record<string, InstanceTypeFacts>> = {
  't3.medium': { vcpus: 2, baselineMBps: 43.38, baselineIops: 2000, burstableCpu: true, usdPerHour: 0.048 },
  't3.large': { vcpus: 2, baselineMBps: 86.88, baselineIops: 4000, burstableCpu: true, usdPerHour: 0.096 },
  't3.xlarge': { vcpus: 4, baselineMBps: 86.88, baselineIops: 4000, burstableCpu: true, usdPerHour: 0.192 },
  'm6i.large': { vcpus: 2, baselineMBps: 81.25, baselineIops: 3600, burstableCpu: false, usdPerHour: 0.115 },
  'm6i.xlarge': { vcpus: 4, baselineMBps: 156.25, baselineIops: 6000, burstableCpu: false, usdPerHour: 0.23 },
  'm6i.2xlarge': { vcpus: 8, baselineMBps: 312.5, baselineIops: 12000, burstableCpu: false, usdPerHour: 0.46 },
  'm6i.4xlarge': { vcpus: 16, baselineMBps: 625, baselineIops: 20000, burstableCpu: false, usdPerHour: 0.92 },
  'c6i.large': { vcpus: 2, baselineMBps: 81.25, baselineIops: 3600, burstableCpu: false, usdPerHour: 0.097 },
  'c6i.xlarge': { vcpus: 4, baselineMBps: 156.25, baselineIops: 6000, burstableCpu: false, usdPerHour: 0.194 },
  'c6i.2xlarge': { vcpus: 8, baselineMBps: 312.5, baselineIops: 12000, burstableCpu: false, usdPerHour: 0.388 },
  'r6i.large': { vcpus: 2, baselineMBps: 81.25, baselineIops: 3600, burstableCpu: false, usdPerHour: 0.152 },
  'r6i.xlarge': { vcpus: 4, baselineMBps: 156.25, baselineIops: 6000, burstableCpu: false, usdPerHour: 0.304 },
  'r6i.2xlarge': { vcpus: 8, baselineMBps: 312.5, baselineIops: 12000, burstableCpu: false, usdPerHour: 0.608 },
};

/**
 * EBS list prices in PRICE_REGION, USD per GB-month (same source as the
 * instance prices). gp3's 3000 IOPS and 125 MiB/s are included in its price;
 * what is provisioned above them, and io1/io2 IOPS, are billed extra at
 * rates not recorded here (the estimate says so).
 */
export const EBS_USD_PER_GB_MONTH: Readonly<Record<string, number>> = {
  gp3: 0.0952,
  gp2: 0.119,
  io1: 0.149,
  io2: 0.149,
  st1: 0.054,
};

/** What gp3 gives without paying for more. */
export const GP3_INCLUDED = { iops: 3000, mibps: 125 } as const;

/** A public IPv4 address (every host has one), USD per hour. */
export const PUBLIC_IPV4_USD_PER_HOUR = 0.005;

/** AWS's convention for turning a monthly rate into an hourly one. */
export const HOURS_PER_MONTH = 730;
