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
import { sourceText } from '../../report/seed-facts.js';
import { perHost } from '../../report/tables.js';
import { SEED_003_PROFILES } from '../fio/seed.js';
import { PERMISSION_CASES, type PermissionCase } from './cases.js';
import { PERMISSIONS_SEED_PARAMETERS, PERMISSIONS_SEED_WORDS } from './seed.js';

/** "yes", "no", or both as "no / yes" when the repetitions disagree. */
const outcomesOf = (runs: readonly Sample[]) => [...new Set(runs.map((s) => (s.value === 1 ? 'yes' : 'no')))];

/** The owner of the file the container wrote: "–" where it wrote none, "not measured" in trials before the column. */
function fileOwnerCell(runs: readonly Sample[]): string {
  const owners = runs.map((s) => s.file_owner);
  if (owners.every((o) => typeof o !== 'string')) return 'not measured';
  return [...new Set(owners.map((o) => (typeof o === 'string' && o !== '' ? o : '–')))].join(' / ');
}

/** Whether uid 1000 could list a volume's `_data` and read the written file; "–" for a bind. */
function hostUserCell(c: PermissionCase, caseSamples: readonly Sample[]): string {
  if (c.source !== 'volume') return '–';
  const list = caseSamples.filter((s) => s.metric === 'host_list');
  if (!list.length) return 'not measured';
  const read = caseSamples.filter((s) => s.metric === 'host_read');
  return `list: ${outcomesOf(list).join(' / ')}${read.length ? `; read: ${outcomesOf(read).join(' / ')}` : ''}`;
}

/** One row per case: this run's outcome beside seed 003's, differences marked. */
function caseRows(hostSamples: readonly Sample[]): Cell[][] {
  const rows: Cell[][] = [];
  for (const c of PERMISSION_CASES) {
    const caseSamples = hostSamples.filter((s) => s.case === c.name);
    const runs = caseSamples.filter((s) => s.metric === 'wrote');
    if (!runs.length) continue;
    const outcomes = outcomesOf(runs);
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
      plain(fileOwnerCell(runs)),
      plain(hostUserCell(c, caseSamples)),
      plain(String(first.error ?? '') || '–'),
      plain(runs.length),
    ]);
  }
  return rows;
}

/** The hosts seed 003's claims judge: those on its own stack when the lab has any, else all. */
export const seed003Hosts = ({ lab }: ClaimContext) => stackHosts(lab, SEED_003_PROFILES);

/** The permissions samples of one metric on the judged hosts. */
function judgedSamples(ctx: ClaimContext, metric: string): Sample[] {
  const hosts = seed003Hosts(ctx);
  return (
    ctx.analysis
      .find((a) => a.name === 'permissions')
      ?.samples.filter((s) => s.metric === metric && hosts.includes(s.host)) ?? []
  );
}

/** The `wrote` samples of the judged hosts. */
const wroteSamples = (ctx: ClaimContext) => judgedSamples(ctx, 'wrote');

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

/** The uid:gid part of a seed owner ("1000:1000 775" → "1000:1000"). */
const uidGid = (owner: string) => owner.split(' ')[0] ?? owner;

/**
 * The written files' owners, where the seed's container wrote: the file has
 * the uid:gid the seed gives its case (65534:65534 on a fresh or emptied
 * volume, line 17, and after chown; 1000:1000 with --user 1000:1000). Only
 * trials that wrote a file count (one that did not is the outcomes claim's);
 * `evidence` says why none were judged when `cases` is 0.
 */
function writtenFileOwners(samples: readonly Sample[]): { cases: number; differ: string[]; evidence: string } {
  const measured = samples.filter((s) => typeof s.file_owner === 'string');
  if (!measured.length)
    return {
      cases: 0,
      differ: [],
      evidence: "the written file's owner: not measured in this run (its permissions.tsv has no file_owner column)",
    };
  const differ: string[] = [];
  let cases = 0;
  for (const c of PERMISSION_CASES) {
    if (!c.seed.wrote) continue;
    const runs = measured.filter((s) => s.case === c.name && s.file_owner !== '');
    if (!runs.length) continue;
    cases++;
    const expected = uidGid(c.seed.owner);
    const unlike = runs.filter((s) => s.file_owner !== expected);
    if (unlike.length) {
      const seen = [...new Set(unlike.map((s) => String(s.file_owner)))].join(', ');
      differ.push(`${c.name}: written.txt ${seen} in ${unlike.length} of ${runs.length} trials; seed 003: ${expected}`);
    }
  }
  return {
    cases,
    differ,
    evidence: cases
      ? `${cases - differ.length} of ${cases} cases the seed's container wrote in with the written file's owner as in seed 003 wherever it was written`
      : "the written file's owner: no case the seed's container wrote in wrote a file in this run",
  };
}

/**
 * 003: who owns the data as the host sees it. The directory: Docker makes a
 * missing bind path 0:0 755 (line 15), a fresh or emptied volume takes the
 * image directory's 65534:65534 (line 17), a volume with content keeps
 * root's (line 18). The file the container wrote: the uid:gid of its case.
 * Contradicted by any trial whose directory or file owner differs from the
 * seed's; confirmed when both match in every case on every judged host and
 * repetition; not shown when this run's trials did not record the files'
 * owners, or wrote none (then only a differing directory can decide).
 */
function owners(ctx: ClaimContext): ClaimAnswer | undefined {
  const all = wroteSamples(ctx);
  const samples = all.filter((s) => typeof s.outside === 'string' && s.outside !== '');
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
  const files = writtenFileOwners(all);
  evidence.push(files.evidence, ...files.differ, sourceText(PERMISSIONS_SEED_WORDS.volumeOwner));
  const contradicted = differ > 0 || files.differ.length > 0;
  return {
    seed: '003',
    claim:
      "the data directory's owner as the host sees it: a missing bind path created 0:0 755 by Docker, the host user's 1000:1000 775 kept, 65534:65534 after chown, a fresh or emptied volume 65534:65534 (copied from the image), a volume with content root's; the file the container wrote owned by its case's uid:gid (65534:65534, 1000:1000 with --user)",
    answer: contradicted ? 'contradicted' : files.cases ? 'confirmed' : 'not shown',
    evidence,
  };
}

/** "fresh-volume 0 of 5, …": in how many of each case's trials the host user could. */
function perCase(samples: readonly Sample[]): string {
  return PERMISSION_CASES.filter((c) => samples.some((s) => s.case === c.name))
    .map((c) => {
      const runs = samples.filter((s) => s.case === c.name);
      return `${c.name} ${runs.filter((s) => s.value === 1).length} of ${runs.length}`;
    })
    .join(', ');
}

/**
 * 003 (line 20): the host user cannot read a volume's files directly — `ls`
 * of its `_data` was denied. Asked of the volume cases: uid 1000 (the seed's
 * host user, line 16) lists `_data` and reads the file the container wrote
 * there. Contradicted by any trial where it could do either; confirmed when
 * every volume trial of the judged hosts measured it and none could; not
 * shown when the trials did not measure it (recorded before the check).
 */
function hostUserCannotReadVolumes(ctx: ClaimContext): ClaimAnswer | undefined {
  const isVolume = (s: Sample) => PERMISSION_CASES.some((c) => c.name === s.case && c.source === 'volume');
  const trials = wroteSamples(ctx).filter(isVolume);
  if (!trials.length) return undefined;
  const listed = judgedSamples(ctx, 'host_list').filter(isVolume);
  const read = judgedSamples(ctx, 'host_read').filter(isVolume);
  const evidence: string[] = [];
  let answer: ClaimAnswer['answer'] = 'not shown';
  if (!listed.length) {
    evidence.push(
      `not measured in this run: its ${trials.length} volume trials predate the host user's check (permissions.tsv without host_list)`,
    );
  } else {
    const could = [...listed, ...read].filter((s) => s.value === 1).length;
    evidence.push(`trials in which uid 1000 listed the volume's _data: ${perCase(listed)}`);
    if (read.length)
      evidence.push(`trials in which uid 1000 read the file the container wrote there: ${perCase(read)}`);
    if (listed.length < trials.length) evidence.push(`measured in ${listed.length} of ${trials.length} volume trials`);
    if (could) answer = 'contradicted';
    else if (listed.length === trials.length) answer = 'confirmed';
  }
  evidence.push(sourceText(PERMISSIONS_SEED_WORDS.hostCannotRead), sourceText(PERMISSIONS_SEED_WORDS.hostUser));
  return {
    seed: '003',
    claim: "the host user (uid 1000) cannot list a volume's _data or read the files the container wrote there",
    answer,
    evidence,
  };
}

export const permissionsReport: ScenarioReport = {
  section: ({ lab, samples }) => ({
    blocks: [
      paragraph(
        prose(
          'A container running as uid 65534 writes into `/data`. Owner and mode of the directory as `uid:gid mode`, seen inside the container and on the host; "file owner", the `uid:gid` of the file it wrote, seen on the host; "host user", whether uid 1000 could list a volume\'s `_data` and read that file. "seed" is what seed 003 observed.',
        ),
      ),
    ],
    sections: perHost(lab, samples, (hostSamples) => [
      table(
        ['case', 'user', 'wrote', 'seed', 'inside', 'outside', 'file owner', 'host user', 'error', 'n'],
        ['left', 'left', 'left', 'left', 'left', 'left', 'left', 'left', 'left', 'right'],
        caseRows(hostSamples),
      ),
    ]),
  }),
  claims: [
    { position: 50, answer: permissionOutcomes, seedParameters: PERMISSIONS_SEED_PARAMETERS, hosts: seed003Hosts },
    { position: 51, answer: owners, seedParameters: PERMISSIONS_SEED_PARAMETERS, hosts: seed003Hosts },
    {
      position: 52,
      answer: hostUserCannotReadVolumes,
      seedParameters: PERMISSIONS_SEED_PARAMETERS,
      hosts: seed003Hosts,
    },
  ],
};
