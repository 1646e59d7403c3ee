import { join } from 'node:path';
import { CONTAINER_NETWORK } from '../catalog.js';
import { loadLabDefinition } from '../definition/load.js';
import { PACKAGE_ROOT } from '../paths.js';
import type { RecordedLab } from '../record/load.js';
import type { ClaimRule } from '../report/model.js';
import { parameterLines } from '../report/seed-facts.js';
import { type SeedTableSection, seedParameterMarkdown } from '../report/seed-table.js';
import { SCENARIOS } from '../scenarios/index.js';
import type { Scenario } from '../scenarios/types.js';

/** The labs the page sets beside the seeds, relative to the package root. */
export const SEED_LABS = ['labs/seeds.yaml', 'labs/seeds-tcg.yaml'] as const;

/** Where the repository keeps the page. */
export const SEED_PARAMETERS_DOC = 'docs/seed-parameters.md';

/** A lab definition as a run's manifest records it: what the claims read. */
function asRecorded(lab: Awaited<ReturnType<typeof loadLabDefinition>>): RecordedLab {
  return {
    name: lab.name,
    hosts: lab.hosts.map((h) => ({ name: h.name, profile: h.profile })),
    mounts: [...lab.mounts],
    scenarioMounts: lab.scenarioMounts as RecordedLab['scenarioMounts'],
    equivalent: lab.equivalent,
    scenarios: lab.scenarios,
    repetitions: lab.repetitions,
    scenarioRepetitions: lab.scenarioRepetitions as RecordedLab['scenarioRepetitions'],
    containerNetwork: CONTAINER_NETWORK[lab.target.kind],
  };
}

/**
 * The page's sections: per scenario with seed claims, each distinct list of
 * seed parameters (claims of one scenario share theirs), with every seed
 * lab's lines — its parameters as defined, the hosts its first claim judges.
 */
export async function seedTableSections(root = PACKAGE_ROOT): Promise<SeedTableSection[]> {
  const labs = await Promise.all(
    SEED_LABS.map(async (file) => ({ file, lab: asRecorded(await loadLabDefinition(join(root, file))) })),
  );
  return Object.values(SCENARIOS)
    .flatMap((s: Scenario<unknown>) => {
      const groups = new Map<ClaimRule['seedParameters'], ClaimRule[]>();
      for (const rule of s.report.claims) {
        if (!rule.seedParameters) continue;
        groups.set(rule.seedParameters, [...(groups.get(rule.seedParameters) ?? []), rule]);
      }
      return [...groups].map(([parameters, rules]): SeedTableSection => {
        const first = rules[0] as ClaimRule;
        return {
          seed: s.seed,
          scenario: s.name,
          claims: rules.length,
          parameters: parameters ?? [],
          labs: labs.map(({ file, lab }) => {
            const judged = first.hosts?.({ analysis: [], lab });
            const params = s.params.safeParse(lab.scenarios[s.name] ?? {});
            return {
              file,
              lines: parameterLines(
                parameters ?? [],
                params.success ? params.data : lab.scenarios[s.name],
                lab.scenarioRepetitions[s.name] ?? lab.repetitions,
                {
                  hosts: lab.hosts.filter((h) => !judged || judged.includes(h.name)),
                  network: lab.containerNetwork,
                },
              ),
            };
          }),
        };
      });
    })
    .sort((a, b) => a.seed.localeCompare(b.seed) || a.scenario.localeCompare(b.scenario));
}

/** The page as the code writes it now. */
export async function seedParametersText(root = PACKAGE_ROOT): Promise<string> {
  return seedParameterMarkdown(await seedTableSections(root));
}

/** `layerlab seed-parameters`: docs/seed-parameters.md on stdout. */
export async function seedParametersCommand(): Promise<void> {
  process.stdout.write(await seedParametersText());
}
