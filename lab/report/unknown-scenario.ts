import { seriesOf } from '../analyze/comparison-rows.js';
import type { RecordedLab } from '../record/load.js';
import type { Sample } from '../record/samples.js';
import { groupBy, medianCell } from './format.js';
import { type Cell, type ScenarioSection, code, inline, paragraph, plain, table } from './model.js';
import { mountOrder, perHost } from './tables.js';

/**
 * The section of a scenario this version of layerlab does not know: a run
 * recorded before the scenario was renamed or removed. Its own tables and
 * claims went with its code, so its samples are shown as recorded: per
 * host, one row per series, mount kind and metric, median (min–max) and n.
 */
export function unknownScenarioSection(name: string, lab: RecordedLab, samples: readonly Sample[]): ScenarioSection {
  const lead = paragraph(
    inline`Scenario ${code(name)} is unknown to this version of layerlab (renamed or removed since this run was recorded): its samples are shown as recorded, without its own tables or claims.`,
  );
  const mounts = mountOrder(lab, samples);
  const sections = perHost(lab, samples, (hostSamples) => {
    const rows: Cell[][] = [];
    for (const [series, inSeries] of groupBy(hostSamples, seriesOf)) {
      for (const mount of mounts) {
        for (const [metric, cell] of groupBy(
          inSeries.filter((s) => s.mount === mount),
          (s) => s.metric,
        )) {
          const { text, n } = medianCell(cell, metric);
          rows.push([series || '–', mount, metric, text, cell[0]?.unit ?? '', String(n)].map(plain));
        }
      }
    }
    return [
      table(
        ['series', 'mount', 'metric', 'median (min–max)', 'unit', 'n'],
        ['left', 'left', 'left', 'right', 'left', 'right'],
        rows,
      ),
    ];
  });
  return { blocks: [lead], sections };
}
