import type { ScenarioReport } from '../../report/model.js';
import { paragraph, plain, prose, table } from '../../report/model.js';
import { perHost } from '../../report/tables.js';
import { LIFETIME_PHASES, LIFETIME_PLACES } from './parse.js';

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
  // Which files survive is an outcome table; no seed claim rests on it.
  claims: [],
};
