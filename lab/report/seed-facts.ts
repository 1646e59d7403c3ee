import { parseSize } from '../util/size.js';

/**
 * What a seed article says, as data: the parameters of its experiment and
 * the figures a claim quotes, each with the article's own words and the line
 * they stand on. Each scenario keeps its seed's facts in
 * lab/scenarios/<name>/seed.ts; the claims quote them from there, the report
 * lists every parameter of a run that differs from the seed's, and
 * test/unit/report/seed-facts.test.ts checks the words against the articles. Only
 * type imports from the record: the scenario registry loads this module.
 */

/** Where a seed says it: the article (seed number), the line, its words exactly as they stand there. */
export interface SeedSource {
  seed: string;
  line: number;
  words: string;
  /** What the words say, where they are not English or the value is derived from them. */
  gloss?: string;
}

/** A number the seed reports (its words hold it: "4m13.634s", "30.1989 MB/sec"). */
export interface SeedFigure {
  value: number;
  source: SeedSource;
}

/** A parameter's value in the lab definition's own form: a count, a size ("512M"), a list. */
export type SeedValue = number | string | readonly string[];

/**
 * One parameter of a seed's experiment. `run` says where this run's value is:
 * a parameter of the claim's scenario (a dotted path such as
 * "blockSize.rand"), the lab's repetitions, or a fixed property of the
 * scenario that no lab definition changes (then `seed` is text and the line is
 * always listed: the run cannot match it).
 */
export interface SeedParameter {
  /** As the report names it: "fio file size". */
  label: string;
  seed: SeedValue;
  /** The unit of a count or duration ("s", "clients"); sizes carry their own. */
  unit?: string;
  /**
   * Where this run's value comes from: a parameter (shown as set; with
   * `says`, as the words for its value, never counted the same as the
   * seed's), the repetitions, or a fixed difference.
   */
  run: { param: string; says?: Readonly<Record<string, string>> } | { repetitions: true } | { fixed: string };
  source: SeedSource;
}

/** One parameter of this run beside the seed's, as the report shows it. */
export interface ParameterLine {
  label: string;
  seed: string;
  run: string;
  same: boolean;
  source: SeedSource;
}

/** A size as people read it: "512 MiB", "64 KiB", "200 B". */
export function sizeText(bytes: number): string {
  for (const [unit, factor] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= factor && bytes % factor === 0) return `${(bytes / factor).toLocaleString('en-US')} ${unit}`;
  }
  return `${bytes.toLocaleString('en-US')} B`;
}

/** Bytes of a size parameter ("512M", "200", 200), or undefined for anything else. */
function bytesOf(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  return typeof v === 'string' ? parseSize(v) : undefined;
}

/** A value as the report shows it. */
function valueText(v: unknown, unit: string | undefined, isSize: boolean): string {
  if (Array.isArray(v)) return v.join(', ');
  if (isSize) {
    const bytes = bytesOf(v);
    if (bytes !== undefined) return sizeText(bytes);
  }
  const text = typeof v === 'number' ? v.toLocaleString('en-US') : String(v);
  return unit ? `${text} ${unit}` : text;
}

/** Same value: sizes by bytes, lists as sets (fio runs its jobs in its own order whatever the list says). */
function sameValue(seed: SeedValue, run: unknown, isSize: boolean): boolean {
  if (Array.isArray(seed))
    return Array.isArray(run) && run.length === seed.length && seed.every((s) => run.includes(s));
  if (isSize) return bytesOf(seed) === bytesOf(run);
  return seed === run;
}

/** `a.b` of a parameter object; undefined when any step is missing. */
function at(params: unknown, path: string): unknown {
  let v = params;
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** The lab's repetitions as recorded: a count, or a stop rule's min and max. */
function repetitionsOf(recorded: unknown): { count?: number; text: string } {
  if (typeof recorded === 'number') return { count: recorded, text: `${recorded} runs` };
  const r = recorded as { min?: unknown; max?: unknown } | undefined;
  if (typeof r?.min === 'number' && typeof r.max === 'number')
    return r.min === r.max ? { count: r.max, text: `${r.max} runs` } : { text: `${r.min}–${r.max} runs (stop rule)` };
  return { text: 'not recorded' };
}

/**
 * The seed's parameters beside this run's: `params` are the run's parameters
 * of the claim's scenario (defaults filled in), `repetitions` the lab's as
 * recorded. A parameter the run did not record reads "not recorded" and
 * counts as different.
 */
export function parameterLines(
  seedParameters: readonly SeedParameter[],
  params: unknown,
  repetitions: unknown,
): ParameterLine[] {
  return seedParameters.map((p) => {
    const isSize = typeof p.seed === 'string' && p.unit === undefined && bytesOf(p.seed) !== undefined;
    const line = (run: string, same: boolean): ParameterLine => ({
      label: p.label,
      seed: valueText(p.seed, p.unit, isSize),
      run,
      same,
      source: p.source,
    });
    if ('fixed' in p.run) return line(p.run.fixed, false);
    if ('repetitions' in p.run) {
      const reps = repetitionsOf(repetitions);
      return line(reps.text, reps.count === p.seed);
    }
    const value = at(params, p.run.param);
    if (value === undefined) return line('not recorded', false);
    const says = p.run.says?.[String(value)];
    if (says) return line(says, false);
    return line(valueText(value, p.unit, isSize), sameValue(p.seed, value, isSize));
  });
}

/** "seed 002 line 6: “1回10分かかります” (one run takes 10 minutes)". */
export const sourceText = (s: SeedSource) =>
  `seed ${s.seed} line ${s.line}: “${s.words}”${s.gloss ? ` (${s.gloss})` : ''}`;
