import type { Sample } from '../../record/samples.js';
import { stackHosts } from '../../report/claim-rules.js';
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
import { SEED_003_PROFILES } from '../fio/seed.js';
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

/** The hosts seed 003's claims judge: those on its own stack when the lab has any, else all. */
export const seed003Hosts = ({ lab }: ClaimContext) => stackHosts(lab, SEED_003_PROFILES);

/** The `wrote` samples of the judged hosts. */
function wroteSamples(ctx: ClaimContext): Sample[] {
  const hosts = seed003Hosts(ctx);
  return (
    ctx.analysis
      .find((a) => a.name === 'permissions')
      ?.samples.filter((s) => s.metric === 'wrote' && hosts.includes(s.host)) ?? []
  );
}

/** 003: the seven permission outcomes. */
function permissionOutcomes(ctx: ClaimContext): ClaimAnswer | undefined {
  const samples = wroteSamples(ctx);
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

/**
 * Whether the host's view of a case's directory ("uid:gid mode") is what the
 * seed saw: owner and mode where the seed gave both, the owner alone where it
 * gave only that (its volumes).
 */
export function ownerAsSeed(seen: string, seed: string): boolean {
  if (seed.includes(' ')) return seen === seed;
  return seen.split(' ')[0] === seed;
}

/**
 * 003: who owns the data directory after each case, seen from the host —
 * Docker makes a missing bind path 0:0 755 (line 15), a fresh or emptied
 * volume takes the image directory's 65534:65534 (line 17), a volume with
 * content keeps root's (line 18). Contradicted by any trial whose owner
 * differs from the seed's; confirmed when every case matches on every judged
 * host and repetition.
 */
function directoryOwners(ctx: ClaimContext): ClaimAnswer | undefined {
  const samples = wroteSamples(ctx).filter((s) => typeof s.outside === 'string' && s.outside !== '');
  if (!samples.length) return undefined;
  const evidence: string[] = [];
  let differ = 0;
  let cases = 0;
  for (const c of PERMISSION_CASES) {
    const runs = samples.filter((s) => s.case === c.name);
    if (!runs.length) continue;
    cases++;
    const unlike = runs.filter((s) => !ownerAsSeed(String(s.outside), c.seed.owner));
    if (unlike.length) {
      differ++;
      const seen = [...new Set(unlike.map((s) => String(s.outside)))].join(', ');
      evidence.push(`${c.name}: ${seen} in ${unlike.length} of ${runs.length} trials; seed 003: ${c.seed.owner}`);
    }
  }
  evidence.unshift(
    `${cases - differ} of ${cases} cases with the directory's owner as in seed 003 on every host and repetition`,
  );
  return {
    seed: '003',
    claim:
      "the data directory's owner as the host sees it: a missing bind path created 0:0 755 by Docker, the host user's 1000:1000 775 kept, 65534:65534 after chown, a fresh or emptied volume 65534:65534 (copied from the image), a volume with content root's",
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
  claims: [
    { position: 50, answer: permissionOutcomes, seedParameters: PERMISSIONS_SEED_PARAMETERS, hosts: seed003Hosts },
    { position: 51, answer: directoryOwners, seedParameters: PERMISSIONS_SEED_PARAMETERS, hosts: seed003Hosts },
  ],
};
