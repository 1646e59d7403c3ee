import { z } from 'zod';
import { parseSize } from '../../util/size.js';
import { sizeParam } from '../params.js';
import type { Scenario } from '../types.js';
import { BACKUP_METHODS, parseBackup } from './parse.js';
import { backupReport } from './report.js';

const size = sizeParam(1, 1024 ** 3);

// Defaults are seed 003's dataset: 2,000 × 64 KiB + 20,000 × 200 B = 135,072,000 bytes.
const params = z
  .object({
    largeFiles: z.number().int().min(0).max(1_000_000).default(2000).describe('large files in the dataset'),
    largeSize: size.default('64k').describe('size of each large file'),
    smallFiles: z.number().int().min(0).max(1_000_000).default(20000).describe('small files in the dataset'),
    smallSize: size
      .default('200')
      .describe("size of each small file; the defaults are seed 003's 135,072,000-byte dataset"),
  })
  .strict()
  .describe('enables backup (seed 003)')
  .refine((p) => p.largeFiles + p.smallFiles > 0, 'the dataset needs at least one file');

export type BackupParams = z.output<typeof params>;

const datasetBytes = (p: BackupParams) =>
  p.largeFiles * (parseSize(p.largeSize) ?? 0) + p.smallFiles * (parseSize(p.smallSize) ?? 0);

export const backup: Scenario<BackupParams> = {
  name: 'backup',
  seed: '003',
  summary: 'backup: tar czf of one dataset from a bind directory, a volume _data directory, and a helper container',
  params,
  mounts: [],
  toolImages: ['shell'],
  rawFile: 'backup.tsv',
  matrixMetric: 'seconds',
  metrics: [
    { name: 'seconds', unit: 's', better: 'lower', description: 'wall time of tar czf', compare: true },
    { name: 'archive_bytes', unit: 'B', better: 'lower', description: 'size of the archive' },
    { name: 'files', unit: 'files', better: 'higher', description: 'files listed in the archive' },
    { name: 'position', unit: 'th', better: 'lower', description: 'when the method ran in its trial (1-3)' },
  ],
  // The three methods archive the same dataset: seed 003 compared them with each other.
  compareSeries: { label: 'method', order: BACKUP_METHODS },
  guestEnv: (p) => ({
    LL_P_LARGE_FILES: String(p.largeFiles),
    LL_P_LARGE_BYTES: String(parseSize(p.largeSize)),
    LL_P_SMALL_FILES: String(p.smallFiles),
    LL_P_SMALL_BYTES: String(parseSize(p.smallSize)),
  }),
  // Writing the dataset, copying it, three archives and three listings (TCG: ~5 MB/s per
  // pass, ~80 files a second; seeds-tcg, run 20261202-095908-seeds-tcg-7da1: 25.1 s a trial for 3.3 MB in 550 files).
  expectedSeconds: (p) => 13 + (datasetBytes(p) / (5 * 1024 ** 2)) * 8 + (p.largeFiles + p.smallFiles) / 80,
  // The dataset twice (bind directory and volume) and one archive at a time.
  diskBytes: (p) => Math.ceil(datasetBytes(p) * 3.2) + (p.largeFiles + p.smallFiles) * 4096 * 2,
  parse: parseBackup,
  report: backupReport,
};
