/**
 * The seeds' facts (lab/scenarios/<name>/seed.ts) against the seed articles
 * and against the labs: every parameter and figure a claim quotes stands in
 * its article at the cited line, in the cited words; each figure is the
 * number its words hold; labs/seeds.yaml runs at the seeds' parameters and
 * labs/seeds-tcg.yaml differs from them exactly where its header says.
 *
 * The articles are not part of the repository: the word check reads them
 * from $LAYERLAB_SEED_ARTICLES, or ../shared/seeds beside the checkout, and
 * is skipped (saying so) where neither exists.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CONTAINER_NETWORK, TARGET_KINDS } from '../../../lab/catalog.ts';
import { loadLabDefinition } from '../../../lab/definition/load.ts';
import { makePlan } from '../../../lab/plan/plan.ts';
import type { Sample } from '../../../lab/record/samples.ts';
import { type SeedFigure, type SeedSource, parameterLines } from '../../../lab/report/seed-facts.ts';
import { BACKUP_SEED_FIGURES } from '../../../lab/scenarios/backup/seed.ts';
import { DB_IMPORT_SEED_FIGURES } from '../../../lab/scenarios/db-import/seed.ts';
import { DBENCH_SEED_FIGURES } from '../../../lab/scenarios/dbench/seed.ts';
import { SEED_003_PROFILES } from '../../../lab/scenarios/fio/seed.ts';
import { SCENARIOS } from '../../../lab/scenarios/index.ts';
import { LIFECYCLE_SEED_FIGURES, LIFECYCLE_SEED_PARAMETERS } from '../../../lab/scenarios/lifecycle/seed.ts';
import { PERMISSIONS_SEED_WORDS } from '../../../lab/scenarios/permissions/seed.ts';
import type { Scenario } from '../../../lab/scenarios/types.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const ARTICLES = process.env.LAYERLAB_SEED_ARTICLES ?? join(ROOT, '..', 'shared', 'seeds');

/** Every claim's seed parameters, with the scenario they belong to (a list several claims share, once). */
const RULES = Object.values(SCENARIOS).flatMap((s: Scenario<unknown>) =>
  [...new Set(s.report.claims.map((r) => r.seedParameters).filter((p) => p !== undefined))].map((parameters) => ({
    scenario: s,
    parameters,
  })),
);

/** Every figure a claim or table quotes, named. */
const FIGURES: [string, SeedFigure][] = [
  ...Object.entries(DBENCH_SEED_FIGURES).map(([k, f]): [string, SeedFigure] => [`dbench ${k}`, f]),
  ...Object.entries(DB_IMPORT_SEED_FIGURES).map(([k, f]): [string, SeedFigure] => [`db-import ${k}`, f]),
  ...Object.entries(BACKUP_SEED_FIGURES).map(([k, f]): [string, SeedFigure] => [`backup ${k}`, f]),
  ...Object.entries(LIFECYCLE_SEED_FIGURES).flatMap(([phase, f]): [string, SeedFigure][] => [
    [`lifecycle ${phase} devicemapper`, f.devicemapper],
    [`lifecycle ${phase} overlay2`, f.overlay2],
  ]),
];

const SOURCES: [string, SeedSource][] = [
  ...RULES.flatMap(({ scenario, parameters }) =>
    parameters.map((p): [string, SeedSource] => [`${scenario.name}: ${p.label}`, p.source]),
  ),
  ...FIGURES.map(([name, f]): [string, SeedSource] => [name, f.source]),
  // Words a claim quotes without a number in them.
  ...Object.entries(PERMISSIONS_SEED_WORDS).map(([k, source]): [string, SeedSource] => [`permissions ${k}`, source]),
];

/** The number a figure's words hold: "2m54.169s" is 174.169, "Throughput 30.1989 MB/sec" 30.1989. */
function numberIn(words: string): number | undefined {
  const minutes = /(\d+)m(\d+(?:\.\d+)?)s/.exec(words);
  if (minutes) return Number(minutes[1]) * 60 + Number(minutes[2]);
  const plain = /\d[\d,]*(?:\.\d+)?/.exec(words);
  return plain ? Number(plain[0].replaceAll(',', '')) : undefined;
}

const squeeze = (s: string) => s.replace(/\s+/g, ' ');

/** Why `source` does not stand in the articles of `dir` as cited, or undefined when it does. */
function sourceProblem(dir: string, name: string, source: SeedSource): string | undefined {
  const file = readdirSync(dir).find((f) => f.startsWith(`${source.seed}_`));
  if (!file) return `${name}: no article for seed ${source.seed} in ${dir}`;
  const line = readFileSync(join(dir, file), 'utf8').split('\n')[source.line - 1];
  if (line === undefined) return `${name}: ${file} has no line ${source.line}`;
  if (!squeeze(line).includes(squeeze(source.words)))
    return `${name}: ${file} line ${source.line} does not say "${source.words}": ${line}`;
  return undefined;
}

describe('seed facts', () => {
  it('every claim of a seed experiment names its parameters; every figure is the number its words hold', () => {
    const withClaims = Object.values(SCENARIOS).filter((s) => s.report.claims.length);
    for (const s of withClaims)
      assert.ok(
        s.report.claims.every((r) => r.seedParameters?.length),
        `${s.name}: a claim without the seed's parameters`,
      );
    for (const [name, f] of FIGURES) {
      const said = numberIn(f.source.words);
      assert.ok(said !== undefined && Math.abs(f.value - said) < 1e-9, `${name}: ${f.value} vs "${f.source.words}"`);
    }
    // The check can fail: a figure off by a rounding.
    assert.notEqual(numberIn('OverlayFS: 0.206s'), 0.21);
  });

  it(
    "every parameter and figure stands in its seed's article at the cited line",
    { skip: !existsSync(ARTICLES) && `the seed articles are not here (${ARTICLES}; set LAYERLAB_SEED_ARTICLES)` },
    () => {
      const problems = SOURCES.map(([name, source]) => sourceProblem(ARTICLES, name, source)).filter(Boolean);
      assert.deepEqual(problems, []);
      // The check can fail: the right words one line off, or words the article never says.
      const [name, source] = SOURCES[0] as [string, SeedSource];
      assert.match(sourceProblem(ARTICLES, name, { ...source, line: source.line + 1 }) ?? '', /does not say/);
      assert.match(sourceProblem(ARTICLES, name, { ...source, words: 'not in any seed' }) ?? '', /does not say/);
    },
  );
});

describe('parameterLines', () => {
  const source = { seed: '003', line: 1, words: 'x' };
  it('compares sizes by bytes, lists as sets, counts with their unit; a fixed property always differs', () => {
    const lines = parameterLines(
      [
        { label: 'size', seed: '512M', run: { param: 'size' }, source },
        { label: 'block', seed: '4k', run: { param: 'bs.rand' }, source },
        { label: 'jobs', seed: ['a', 'b'], run: { param: 'jobs' }, source },
        { label: 'duration', seed: 600, unit: 's', run: { param: 'duration' }, source },
        { label: 'image', seed: '1.6 GB', run: { fixed: 'a small one' }, source },
        { label: 'said', seed: '1.6 GB', run: { param: 'image', says: { large: 'a 1.3 GB one' } }, source },
        { label: 'missing', seed: 1, run: { param: 'nope' }, source },
      ],
      { size: '8M', bs: { rand: 4096 }, jobs: ['b', 'a'], duration: 2, image: 'large' },
      undefined,
    );
    assert.deepEqual(
      lines.map((l) => [l.label, l.seed, l.run, l.same]),
      [
        ['size', '512 MiB', '8 MiB', false],
        ['block', '4 KiB', '4 KiB', true],
        ['jobs', 'a, b', 'b, a', true],
        ['duration', '600 s', '2 s', false],
        ['image', '1.6 GB', 'a small one', false],
        ['said', '1.6 GB', 'a 1.3 GB one', false],
        ['missing', '1', 'not recorded', false],
      ],
    );
  });

  it("repetitions: a fixed count is the seed's or not; a stop rule never claims to be", () => {
    const reps = [{ label: 'repetitions', seed: 4, unit: 'runs', run: { repetitions: true as const }, source }];
    assert.deepEqual(
      [
        parameterLines(reps, {}, { min: 4, max: 4 }),
        parameterLines(reps, {}, 5),
        parameterLines(reps, {}, { min: 4, max: 10 }),
      ].map(([l]) => [l?.run, l?.same]),
      [
        ['4 runs', true],
        ['5 runs', false],
        ['4–10 runs (stop rule)', false],
      ],
    );
  });
});

describe('parameterLines: stacks and measured values', () => {
  const source = { seed: '003', line: 7, words: 'x' };
  const hosts = [
    { name: 'xfs', profile: 'overlay2-xfs' },
    { name: 'dm', profile: 'devicemapper-lvm' },
  ];
  it("a stack is the seed's only when every judged host runs one of its profiles; drivers pick one side", () => {
    const stack = (same: ('containerd-ext4' | 'overlay2-xfs')[], drivers?: string[]) => ({
      label: 'stack',
      seed: 'ext4',
      run: { stack: { same, ...(drivers ? { drivers } : {}) } },
      source,
    });
    const [all, xfsOnly, none, unrecorded] = [
      parameterLines([stack(['containerd-ext4'])], {}, 3, { hosts }),
      parameterLines([stack(['overlay2-xfs'], ['overlay2'])], {}, 3, { hosts }),
      parameterLines([stack([], ['btrfs'])], {}, 3, { hosts }),
      parameterLines([stack([])], {}, 3),
    ].map(([l]) => l);
    assert.match(all?.run ?? '', /^host xfs: overlay2-xfs \(data disk mkfs\.xfs[^)]*\); host dm: devicemapper-lvm \(/);
    assert.equal(all?.same, false);
    assert.match(xfsOnly?.run ?? '', /^host xfs: overlay2-xfs \([^;]*$/);
    assert.equal(xfsOnly?.same, true, 'the only overlay2 host runs the seed profile');
    assert.deepEqual([none?.run, none?.same], ['no host of driver btrfs', false]);
    assert.deepEqual([unrecorded?.run, unrecorded?.same], ['not recorded', false]);
  });

  it("a measured value is the seed's when every value lies within the tolerance", () => {
    const size = [{ label: 'dump', seed: '10M', run: { measured: { metric: 'dump_bytes', tolerance: 0.1 } }, source }];
    const values = (...bytes: number[]) => bytes.map((value) => ({ metric: 'dump_bytes', value }) as unknown as Sample);
    const [near, far, none] = [
      parameterLines(size, {}, 3, { samples: values(10_000_000, 10_000_000) }),
      parameterLines(size, {}, 3, { samples: values(10_000_000, 8_000_000) }),
      parameterLines(size, {}, 3, { samples: [] }),
    ].map(([l]) => l);
    assert.deepEqual([near?.seed, near?.run, near?.same], ['10 MiB', '10,000,000 B as written', true]);
    assert.deepEqual([far?.run, far?.same], ['8,000,000 B, 10,000,000 B as written', false]);
    assert.deepEqual([none?.run, none?.same], ['not recorded', false]);
  });
});

describe("parameterLines: seed 004's container network, the run's target's (issue 39)", () => {
  const network = LIFECYCLE_SEED_PARAMETERS.filter((p) => p.label === 'container network');
  it("same as the seed on aws (Docker's default bridge); unlike, with the words of --network none, on local and static", () => {
    assert.equal(network.length, 1, 'lifecycle lists its container network');
    const lines = Object.fromEntries(
      TARGET_KINDS.map((t) => [t, parameterLines(network, {}, 10, { network: CONTAINER_NETWORK[t] })[0]]),
    );
    assert.deepEqual(Object.fromEntries(TARGET_KINDS.map((t) => [t, lines[t]?.same])), {
      local: false,
      aws: true,
      static: false,
    });
    assert.equal(
      lines.local?.run,
      '`docker run --network none` on a daemon started with bridge none and no iptables (guest/lib.sh, target local or static): no network setup is timed',
    );
    assert.match(lines.aws?.run ?? '', /^`docker run -d` on Docker's default bridge network \(target aws\)/);
    const [unrecorded] = parameterLines(network, {}, 10);
    assert.deepEqual([unrecorded?.run, unrecorded?.same], ['not recorded', false]);
  });
});

describe('the seed labs', () => {
  /** Parameters of `file` unlike the seeds' ("scenario: label"), repetitions and fixed properties aside. */
  async function unlikeTheSeeds(file: string): Promise<string[]> {
    const lab = await loadLabDefinition(join(ROOT, file));
    return RULES.flatMap(({ scenario, parameters }) => {
      const params = (lab.scenarios as Record<string, unknown>)[scenario.name];
      assert.ok(params, `${file} runs ${scenario.name}`);
      // A parameter whose values are only described (lifecycle's image) never equals the seed's exactly.
      const settable = parameters.filter((p) => 'param' in p.run && !p.run.says);
      return parameterLines(settable, params, lab.repetitions)
        .filter((l) => !l.same)
        .map((l) => `${scenario.name}: ${l.label}`);
    });
  }

  it("labs/seeds.yaml runs every scenario at the seeds' own parameters, lifecycle on the large image, seed 003's stack on a host; 225 and 130 trials", async () => {
    assert.deepEqual(await unlikeTheSeeds('labs/seeds.yaml'), []);
    const seeds = await loadLabDefinition(join(ROOT, 'labs/seeds.yaml'));
    assert.equal(seeds.scenarios.lifecycle?.image, 'large', "seed 004's 1.6 GB image has a counterpart");
    assert.ok(
      seeds.hosts.some((h) => (SEED_003_PROFILES as readonly string[]).includes(h.profile)),
      "a host on seed 003's stack (containerd-ext4)",
    );
    assert.equal(makePlan(seeds).trials.length, 225, 'dbench and db-import on three shared folders, three hosts');
    assert.equal(makePlan(await loadLabDefinition(join(ROOT, 'labs/seeds-tcg.yaml'))).trials.length, 130);
  });

  it('labs/seeds-tcg.yaml differs where its header says: sizes, durations and counts, not the kind of work', async () => {
    assert.deepEqual((await unlikeTheSeeds('labs/seeds-tcg.yaml')).sort(), [
      'backup: large files',
      'backup: small files',
      'db-import: gzip dump size',
      'dbench: dbench clients',
      'dbench: dbench duration',
      'fio: fio file size',
      'fio: fio iodepth',
      'fio: fio ramp per job',
      'fio: fio runtime per job',
      'lifecycle: containers',
      'lifecycle: containers churning packages at once',
    ]);
  });
});
