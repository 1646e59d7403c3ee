import { type ContainerNetwork, PROFILES, type ProfileName } from '../catalog.js';
import type { Sample } from '../record/samples.js';
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
 * Where a parameter's value lies in this run, beyond the scenario's own
 * parameters: the storage stack of the hosts the claim judged (their
 * profiles; only those of `drivers` when given, one side of a comparison of
 * drivers), the same as the seed's only when every such host runs a profile
 * of `same`.
 */
export interface StackRun {
  stack: { same: readonly ProfileName[]; drivers?: readonly string[] };
}

/**
 * What the run measured of a parameter it only asked for (db-import's dump
 * size: the generator aims at the size, the bytes are what it wrote): the
 * values of a metric of the claim's scenario, the same as the seed's when
 * every value lies within `tolerance` (a fraction) of it.
 */
export interface MeasuredRun {
  measured: { metric: string; tolerance: number };
}

/**
 * How the run's containers were networked (its target's, lab/catalog.ts
 * CONTAINER_NETWORK): the words for each, the same as the seed's only for `same`.
 */
export interface NetworkRun {
  network: { says: Readonly<Record<ContainerNetwork, string>>; same: ContainerNetwork };
}

/**
 * One parameter of a seed's experiment. `run` says where this run's value is:
 * a parameter of the claim's scenario (a dotted path such as
 * "blockSize.rand"), the lab's repetitions, the hosts' storage stacks, a
 * measured value, the target's container network, or a fixed property of the
 * scenario that no lab definition changes (then `seed` is text and the line
 * is always listed: the run cannot match it).
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
  run:
    | { param: string; says?: Readonly<Record<string, string>> }
    | { repetitions: true }
    | StackRun
    | MeasuredRun
    | NetworkRun
    | { fixed: string };
  source: SeedSource;
}

/** What a run holds beyond its scenario parameters and repetitions: its hosts, and the claim's samples. */
export interface RunFacts {
  /** The hosts whose data the claim judged, with their profiles. */
  hosts?: readonly { name: string; profile: string }[];
  /** The samples of the claim's scenario. */
  samples?: readonly Sample[];
  /** The container network the run's target gave its hosts. */
  network?: ContainerNetwork;
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

/** A profile as the parameter lines show it: "overlay2-xfs (data disk mkfs.xfs -n ftype=1, …)". */
export function profileText(profile: string): string {
  const spec = PROFILES[profile as ProfileName];
  return spec ? `${profile} (${spec.description})` : profile;
}

/** The stack line of a run: the judged hosts of the stack's drivers, the same when all run a profile of `same`. */
function stackValue(stack: StackRun['stack'], hosts: RunFacts['hosts']): { text: string; same: boolean } | undefined {
  if (!hosts) return undefined;
  const driver = (profile: string) => PROFILES[profile as ProfileName]?.storageDriver ?? '';
  const judged = hosts.filter((h) => !stack.drivers || stack.drivers.includes(driver(h.profile)));
  if (!judged.length)
    return { text: `no host of ${stack.drivers ? `driver ${stack.drivers.join(' or ')}` : 'this claim'}`, same: false };
  return {
    text: judged.map((h) => `host ${h.name}: ${profileText(h.profile)}`).join('; '),
    same: judged.every((h) => (stack.same as readonly string[]).includes(h.profile)),
  };
}

/** The measured line of a run: the metric's values (sizes in bytes), the same when all lie within tolerance of the seed's. */
function measuredValue(
  seed: SeedValue,
  measured: MeasuredRun['measured'],
  samples: RunFacts['samples'],
): { text: string; same: boolean } | undefined {
  const values = [...new Set((samples ?? []).filter((s) => s.metric === measured.metric).map((s) => s.value))].sort(
    (a, b) => a - b,
  );
  if (!values.length) return undefined;
  const target = bytesOf(seed);
  const shown = values.map((v) => `${v.toLocaleString('en-US')} B`);
  const text = `${shown.length > 3 ? `${shown[0]} to ${shown.at(-1)}` : shown.join(', ')} as written`;
  const same = target !== undefined && values.every((v) => Math.abs(v - target) <= measured.tolerance * target);
  return { text, same };
}

/**
 * The seed's parameters beside this run's: `params` are the run's parameters
 * of the claim's scenario (defaults filled in), `repetitions` the lab's as
 * recorded, `facts` the hosts the claim judged, its scenario's samples and
 * the run's container network. A parameter the run did not record reads
 * "not recorded" and counts as different.
 */
export function parameterLines(
  seedParameters: readonly SeedParameter[],
  params: unknown,
  repetitions: unknown,
  facts: RunFacts = {},
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
    if ('stack' in p.run) {
      const v = stackValue(p.run.stack, facts.hosts);
      return v ? line(v.text, v.same) : line('not recorded', false);
    }
    if ('network' in p.run) {
      const { says, same } = p.run.network;
      return facts.network ? line(says[facts.network], facts.network === same) : line('not recorded', false);
    }
    if ('measured' in p.run) {
      const v = measuredValue(p.seed, p.run.measured, facts.samples);
      return v ? line(v.text, v.same) : line('not recorded', false);
    }
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
