import type { ContainerNetwork } from '../catalog.js';
import { type ParameterLine, type SeedParameter, sourceText } from './seed-facts.js';

/**
 * The seeds' parameters beside labs' as one Markdown page
 * (docs/seed-parameters.md, written by `layerlab seed-parameters`): per seed
 * and scenario, each parameter with the seed's value, each lab's and whether
 * it is the same. Made from the same facts and the same comparison as the
 * report's "unlike the seed" lines, so the page cannot say otherwise than a
 * report of those labs; test/unit/commands/seed-parameters.test.ts fails
 * when the committed page is not what the code writes now.
 */

/** One scenario's seed parameters, with their lines for each lab. */
export interface SeedTableSection {
  seed: string;
  scenario: string;
  /** How many seed claims rest on these parameters. */
  claims: number;
  parameters: readonly SeedParameter[];
  /** Per lab file: parameterLines of `parameters` (same order), from its definition. */
  labs: readonly { file: string; lines: readonly ParameterLine[] }[];
}

/** A table cell: '|' escaped, line breaks flattened. */
const cellText = (s: string) => s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

const sameText = (same: boolean) => (same ? 'same' : '**unlike**');

/**
 * This lab's value and whether it is the seed's; a measured value is known
 * only once a run has it; a container network is the target's, so the other
 * targets' follow the lab's own.
 */
function labCell(p: SeedParameter, line: ParameterLine | undefined): string {
  if ('measured' in p.run)
    return `measured in each run (\`${p.run.measured.metric}\`), the same within ${p.run.measured.tolerance * 100}% — per run`;
  if (!line) return '–';
  const own = `${line.run} — ${sameText(line.same)}`;
  if (!('network' in p.run)) return own;
  const { says, same } = p.run.network;
  const others = (Object.keys(says) as ContainerNetwork[])
    .filter((n) => says[n] !== line.run)
    .map((n) => `${says[n]} — ${sameText(n === same)}`);
  return [own, ...others.map((o) => `on another target: ${o}`)].join('; ');
}

export function seedParameterMarkdown(sections: readonly SeedTableSection[]): string {
  const files = [...new Set(sections.flatMap((s) => s.labs.map((l) => l.file)))];
  const out = [
    '# The seeds’ parameters beside the seed labs’',
    '',
    '<!-- Written by `layerlab seed-parameters > docs/seed-parameters.md`; edit lab/scenarios/<name>/seed.ts instead. -->',
    '',
    `Each seed experiment's parameters, from the scenarios' seed facts (\`lab/scenarios/<name>/seed.ts\`), beside those of ${files.map((f) => `\`${f}\``).join(' and ')}: the same comparison that lists them under each claim of a report as "unlike the seed". A stack is that of the hosts the claims judge; a container network is the lab target's, followed by what the other targets do; a fixed difference is one no lab definition changes. The source is the article's line and its own words.`,
  ];
  for (const s of sections) {
    out.push(
      '',
      `## Seed ${s.seed}: ${s.scenario}`,
      '',
      `${s.claims} claim${s.claims === 1 ? '' : 's'} of the report rest${s.claims === 1 ? 's' : ''} on these parameters.`,
      '',
      `| parameter | seed | ${files.map((f) => `\`${f}\``).join(' | ')} | source |`,
      `|---|---|${files.map(() => '---|').join('')}---|`,
    );
    s.parameters.forEach((p, i) => {
      const first = s.labs[0]?.lines[i];
      const cells = files.map((f) => labCell(p, s.labs.find((l) => l.file === f)?.lines[i]));
      out.push(
        `| ${[p.label, first?.seed ?? String(p.seed), ...cells, sourceText(p.source)].map(cellText).join(' | ')} |`,
      );
    });
  }
  return `${out.join('\n')}\n`;
}
