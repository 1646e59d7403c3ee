import type { Sample } from '../../record/samples.js';
import {
  type Cell,
  type ClaimAnswer,
  type ClaimContext,
  type Inline,
  type ScenarioReport,
  inline,
  plain,
} from '../../report/model.js';
import { paragraph, prose, table } from '../../report/model.js';
import { perHost } from '../../report/tables.js';
import { PERMISSION_CASES } from './cases.js';
import { PERMISSIONS_SEED_PARAMETERS } from './seed.js';

/** One row per case: this run's outcome beside seed 003's, differences marked. */
function caseRows(hostSamples: readonly Sample[]): Cell[][] {
  const rows: Cell[][] = [];
  for (const c of PERMISSION_CASES) {
    const runs = hostSamples.filter((s) => s.case === c.name);
    if (!runs.length) continue;
    const outcomes = [...new Set(runs.map((s) => (s.value === 1 ? 'yes' : 'no')))];
    const seed = c.seed.wrote ? 'yes' : 'no';
    const same = outcomes.length === 1 && outcomes[0] === seed;
    const first = runs[0] as Sample;
    const seedCell: Inline = same ? plain(seed) : inline`${seed} — **differs**`;
    rows.push([
      plain(c.name),
      plain(first.user ?? ''),
      plain(outcomes.join(' / ')),
      seedCell,
      plain(first.inside ?? ''),
      plain(first.outside ?? ''),
      plain(String(first.error ?? '') || '–'),
      plain(runs.length),
    ]);
  }
  return rows;
}

/** 003: the seven permission outcomes. */
function permissionOutcomes({ analysis }: ClaimContext): ClaimAnswer | undefined {
  const samples = analysis.find((a) => a.name === 'permissions')?.samples.filter((s) => s.metric === 'wrote') ?? [];
  if (!samples.length) return undefined;
  const evidence: string[] = [];
  let differ = 0;
  for (const c of PERMISSION_CASES) {
    const runs = samples.filter((s) => s.case === c.name);
    if (!runs.length) continue;
    const wrote = runs.filter((s) => s.value === 1).length;
    const expected = c.seed.wrote ? runs.length : 0;
    if (wrote !== expected) {
      differ++;
      evidence.push(
        `${c.name}: wrote in ${wrote} of ${runs.length} trials; seed 003: ${c.seed.wrote ? 'wrote' : 'denied'}`,
      );
    }
  }
  const cases = new Set(samples.map((s) => s.case)).size;
  evidence.unshift(`${cases - differ} of ${cases} cases as in seed 003 on every host and repetition`);
  return {
    seed: '003',
    claim:
      'a uid-65534 container cannot write to a missing or host-user-owned bind path or a volume holding root-owned files; chown, --user and fresh (or emptied) volumes work',
    answer: differ ? 'contradicted' : 'confirmed',
    evidence,
  };
}

export const permissionsReport: ScenarioReport = {
  section: ({ lab, samples }) => ({
    blocks: [
      paragraph(
        prose(
          'A container running as uid 65534 writes into `/data`. Owner and mode of the directory as `uid:gid mode`, seen inside the container and on the host. "seed" is what seed 003 observed.',
        ),
      ),
    ],
    sections: perHost(
      lab,
      samples.filter((s) => s.metric === 'wrote'),
      (hostSamples) => [
        table(
          ['case', 'user', 'wrote', 'seed', 'inside', 'outside', 'error', 'n'],
          ['left', 'left', 'left', 'left', 'left', 'left', 'left', 'right'],
          caseRows(hostSamples),
        ),
      ],
    ),
  }),
  claims: [{ position: 50, answer: permissionOutcomes, seedParameters: PERMISSIONS_SEED_PARAMETERS }],
};
