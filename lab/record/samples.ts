import { existsSync, readFileSync } from 'node:fs';
import { type NdjsonWarn, parseNdjson, writeFileAtomic } from '../util/files.js';
import { say } from '../util/log.js';
import { checkWith } from './check.js';
import { type Sample, sampleSchema } from './schemas.js';

export type { Sample } from './schemas.js';

/** The labels every sample has; any other key is a scenario label (fio: job, direction). */
export const CORE_LABELS = [
  'run',
  'host',
  'profile',
  'scenario',
  'mount',
  'rep',
  'trial',
  'metric',
  'value',
  'unit',
  'timestamp',
] as const;
const CORE_SET = new Set<string>(CORE_LABELS);

/** A sample's scenario labels, in the order the parser wrote them. */
export function scenarioLabels(sample: Sample): [string, string | number][] {
  return Object.entries(sample).filter(([key]) => !CORE_SET.has(key));
}

/**
 * Reads samples.ndjson (empty when it does not exist yet). A torn last line
 * (a crash or a full disk mid-append) is skipped with a warning; a bad line
 * elsewhere throws naming file and line.
 */
export function readSamples(path: string, warn: NdjsonWarn = say): Sample[] {
  if (!existsSync(path)) return [];
  return parseNdjson(readFileSync(path, 'utf8'), path, warn, checkWith(sampleSchema));
}

/** Rewrites samples.ndjson as a whole, atomically. */
export function writeSamples(path: string, samples: readonly Sample[]): Promise<void> {
  return writeFileAtomic(path, samples.map((s) => `${JSON.stringify(s)}\n`).join(''));
}
