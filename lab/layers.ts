/**
 * The layer of every folder and file of lab/, infra/ and bench/, in one
 * place: test/unit/layers.test.ts enforces it (imports only go downward or
 * sideways, and never in a circle) and the architecture docs read it.
 *
 * A path's layer is that of its longest entry below (a file's own entry wins
 * over its folder's). Adding a file to a listed folder needs no new line; a
 * file whose job belongs to another layer than its folder's gets its own.
 */

/** What each layer holds; a module imports only from its own layer or those below. */
export const LAYER_NAMES = [
  'L0 types and catalogs',
  'L1 toolkits',
  'L2 scenario plugins',
  'L3 registries',
  'L4 consumers',
] as const;

export type Layer = 0 | 1 | 2 | 3 | 4;

export const LAYERS: Readonly<Record<string, Layer>> = {
  // L0: catalogs, types and plumbing that know no scenario and no report.
  'lab/catalog.ts': 0,
  'lab/errors.ts': 0,
  'lab/paths.ts': 0,
  'lab/layers.ts': 0,
  'lab/util/': 0,
  'lab/scenarios/types.ts': 0,
  'lab/scenarios/metric.ts': 0,
  'lab/analyze/types.ts': 0,
  'lab/record/': 0,
  'lab/report/model.ts': 0,
  'lab/report/seed-facts.ts': 0,
  'lab/report/exporter.ts': 0,

  // L1: toolkits: statistics and verdicts, the report kit, parsing helpers.
  'lab/analyze/': 1,
  'lab/report/': 1,
  'lab/scenarios/tsv.ts': 1,
  'lab/scenarios/params.ts': 1,
  // The benchmark trend export: an exporter's toolkit (the cloud's history/ keeps the file).
  'lab/history/benchmark-export.ts': 1,

  // L2: one folder per scenario.
  'lab/scenarios/': 2,

  // L3: the registries that assemble scenarios and exporters.
  'lab/scenarios/index.ts': 3,
  'lab/report/exporters.ts': 3,

  // L4: what uses the registries: the analysis and report of a run, the lab
  // definition (it validates scenario names and parameters), the plan,
  // phases, commands, the CLI, targets, infra and benches.
  'lab/analyze/analysis.ts': 4,
  'lab/report/build.ts': 4,
  'lab/report/claims.ts': 4,
  'lab/definition/': 4,
  'lab/plan/': 4,
  'lab/phases/': 4,
  'lab/commands/': 4,
  'lab/cli.ts': 4,
  'lab/collect/': 4,
  'lab/prepare/': 4,
  'lab/run/': 4,
  'lab/ssh/': 4,
  'lab/targets/': 4,
  'lab/toolimages/': 4,
  'lab/history/': 4,
  'infra/': 4,
  'bench/': 4,
};

/** The layer of a path relative to the repository root (forward slashes), or undefined when no entry covers it. */
export function layerOf(path: string): Layer | undefined {
  let best: string | undefined;
  for (const entry of Object.keys(LAYERS)) {
    const covers = entry.endsWith('/') ? path.startsWith(entry) : path === entry;
    if (covers && (best === undefined || entry.length > best.length)) best = entry;
  }
  return best === undefined ? undefined : LAYERS[best];
}
