import type { ClaimAnswer, ClaimContext, ScenarioReport } from '../../report/model.js';
import { paragraph, plain, prose, table } from '../../report/model.js';
import { perHost } from '../../report/tables.js';
import { seed003Hosts } from '../permissions/report.js';
import { LIFETIME_PHASES, LIFETIME_PLACES } from './parse.js';
import { LIFETIME_SEED_OUTCOME, LIFETIME_SEED_PARAMETERS } from './seed.js';

/**
 * 003 (line 24): after the container is removed and recreated, the file in
 * its writable layer is gone and those on the volume and the bind mount are
 * still there. Contradicted by any trial of a judged host where a place
 * kept or lost its file unlike the seed; confirmed when every trial agrees.
 */
function onlyMountsOutliveTheContainer(ctx: ClaimContext): ClaimAnswer | undefined {
  const hosts = seed003Hosts(ctx);
  const samples =
    ctx.analysis
      .find((a) => a.name === 'lifetime')
      ?.samples.filter((s) => s.metric === 'survived' && s.phase === 'recreate' && hosts.includes(s.host)) ?? [];
  if (!samples.length) return undefined;
  const evidence: string[] = [];
  for (const place of LIFETIME_PLACES) {
    const runs = samples.filter((s) => s.place === place);
    if (!runs.length) continue;
    const kept = runs.filter((s) => s.value === 1).length;
    const expected = LIFETIME_SEED_OUTCOME[place] ? runs.length : 0;
    evidence.push(
      `${place}: the file was still there in ${kept} of ${runs.length} trials${kept === expected ? '' : ` — seed 003: ${LIFETIME_SEED_OUTCOME[place] ? 'kept' : 'gone'}`}`,
    );
  }
  const differ = LIFETIME_PLACES.some((place) => {
    const runs = samples.filter((s) => s.place === place);
    return runs.some((s) => (s.value === 1) !== LIFETIME_SEED_OUTCOME[place]);
  });
  const complete = LIFETIME_PLACES.every((place) => samples.some((s) => s.place === place));
  return {
    seed: '003',
    claim:
      "a file in the container's writable layer is gone once the container is removed and recreated; files on a named volume and on a bind mount are still there",
    answer: differ ? 'contradicted' : complete ? 'confirmed' : 'not shown',
    evidence,
  };
}

/** Survived: how many repetitions found the file, per phase and place. */
export const lifetimeReport: ScenarioReport = {
  section: ({ lab, samples }) => ({
    blocks: [
      paragraph(
        prose(
          'A file written into the container layer, a named volume and a bind mount; then the container is restarted, and separately removed and recreated with the same mounts. Cells: repetitions in which the file was still there.',
        ),
      ),
    ],
    sections: perHost(lab, samples, (hostSamples) => [
      table(
        ['after', ...LIFETIME_PLACES],
        ['left', ...LIFETIME_PLACES.map(() => 'left' as const)],
        LIFETIME_PHASES.map((phase) => [
          plain(phase),
          ...LIFETIME_PLACES.map((place) => {
            const runs = hostSamples.filter((s) => s.phase === phase && s.place === place);
            const kept = runs.filter((s) => s.value === 1).length;
            return plain(runs.length ? `${kept}/${runs.length}` : '–');
          }),
        ]),
      ),
    ]),
  }),
  claims: [
    {
      position: 55,
      answer: onlyMountsOutliveTheContainer,
      seedParameters: LIFETIME_SEED_PARAMETERS,
      hosts: seed003Hosts,
    },
  ],
};
