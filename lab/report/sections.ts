import { type LoadedRun, recordedLab } from '../record/load.js';
import type { Sample } from '../record/samples.js';
import { BACKUP_METHODS } from '../scenarios/backup/parse.js';
import { FIO_JOBS } from '../scenarios/fio/parse.js';
import { LIFECYCLE_PHASES } from '../scenarios/lifecycle/parse.js';
import { LIFETIME_PHASES, LIFETIME_PLACES } from '../scenarios/lifetime/parse.js';
import { PERMISSION_CASES } from '../scenarios/permissions/cases.js';
import { cell, groupBy, md } from './format.js';

/**
 * The per-scenario tables of report.md: what a reader of each seed looks for,
 * as median (min–max) over repetitions, or as outcomes where there is nothing
 * to average (permissions, lifetime).
 */

interface Column {
  metric: string;
  title: string;
}

function hostOrder(run: LoadedRun): string[] {
  return recordedLab(run).hosts.map((h) => h.name);
}

/** One "### host (profile)" block per host that has samples, in the lab's host order. */
function perHost(run: LoadedRun, samples: readonly Sample[], body: (hostSamples: Sample[]) => string[]): string[] {
  const byHost = groupBy(samples, (s) => s.host);
  return hostOrder(run).flatMap((host) => {
    const hostSamples = byHost.get(host);
    if (!hostSamples) return [];
    return [`### ${host} (${hostSamples[0]?.profile ?? ''})`, '', ...body(hostSamples), ''];
  });
}

function mountOrder(run: LoadedRun, samples: readonly Sample[]): string[] {
  const lab = recordedLab(run).mounts;
  const present = new Set(samples.map((s) => s.mount));
  return [...lab, ...[...present].filter((m) => !lab.includes(m))].filter((m) => present.has(m));
}

/** Per host: one row per series (in `order`) and mount kind, one column per metric. */
function metricTable(
  run: LoadedRun,
  samples: readonly Sample[],
  series: { label: string; title: string; order: readonly string[] } | undefined,
  columns: readonly Column[],
): string[] {
  const mounts = mountOrder(run, samples);
  const showMount = !(mounts.length === 1 && mounts[0] === 'none');
  const labels = [...(series ? [series.title] : []), ...(showMount ? ['mount'] : [])];
  const head = [...labels, ...columns.map((c) => c.title), 'n'];
  const rank = (key: string) => (series?.order.indexOf(key) ?? -1) + 1 || 99;
  return perHost(run, samples, (hostSamples) => {
    const out = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i < labels.length ? '---' : '---:')).join('|')}|`];
    const bySeries = groupBy(hostSamples, (s) => (series ? String(s[series.label] ?? '') : ''));
    const keys = [...bySeries.keys()].sort((a, b) => rank(a) - rank(b));
    for (const key of keys) {
      for (const mount of mounts) {
        const cellSamples = (bySeries.get(key) ?? []).filter((s) => s.mount === mount);
        if (!cellSamples.length) continue;
        const cells = columns.map((c) => cell(cellSamples, c.metric));
        const row = [
          ...(series ? [key] : []),
          ...(showMount ? [mount] : []),
          ...cells.map((c) => c.text),
          String(cells[0]?.n ?? 0),
        ];
        out.push(`| ${row.join(' | ')} |`);
      }
    }
    return out;
  });
}

function fioSection(run: LoadedRun, samples: readonly Sample[]): string[] {
  return [
    'Bandwidth is fio `bw` in KiB/s (1 KiB = 1024 bytes); latency is completion latency (clat) in microseconds.',
    '',
    ...metricTable(run, samples, { label: 'job', title: 'job', order: FIO_JOBS.map((j) => j.name) }, [
      { metric: 'bw', title: 'bandwidth KiB/s' },
      { metric: 'iops', title: 'IOPS' },
      { metric: 'clat_p99', title: 'clat p99 µs' },
    ]),
  ];
}

function dbenchSection(run: LoadedRun, samples: readonly Sample[]): string[] {
  return [
    'Throughput in dbench MB/s (10^6 bytes/s) and the worst latency of the run; per-operation counts and latencies are in samples.ndjson.',
    '',
    ...metricTable(
      run,
      samples.filter((s) => s.op === 'all'),
      undefined,
      [
        { metric: 'throughput', title: 'throughput MB/s' },
        { metric: 'max_latency', title: 'max latency ms' },
      ],
    ),
  ];
}

function dbImportSection(run: LoadedRun, samples: readonly Sample[]): string[] {
  return [
    'The import alone (server started and ready before the clock starts), a fresh datadir per trial, row counts checked after each import.',
    '',
    ...metricTable(run, samples, undefined, [
      { metric: 'seconds', title: 'import seconds' },
      { metric: 'rows_per_second', title: 'rows/s' },
      { metric: 'sql_mb_per_second', title: 'SQL MB/s' },
    ]),
  ];
}

function lifecycleSection(run: LoadedRun, samples: readonly Sample[]): string[] {
  return [
    'Wall seconds per phase over all its containers (seed 004 timed `for i in $(seq 10); do docker run -d …; done` the same way). install/remove: every churn container runs dpkg at once.',
    '',
    ...metricTable(run, samples, { label: 'phase', title: 'phase', order: LIFECYCLE_PHASES }, [
      { metric: 'seconds', title: 'seconds' },
    ]),
  ];
}

function backupSection(run: LoadedRun, samples: readonly Sample[]): string[] {
  return [
    '`tar czf` of the same dataset, the same tar and gzip binaries in all three methods (checked by sha256), in a shuffled order per trial, page cache dropped before each.',
    '',
    ...metricTable(run, samples, { label: 'method', title: 'method', order: BACKUP_METHODS }, [
      { metric: 'seconds', title: 'seconds' },
      { metric: 'archive_bytes', title: 'archive bytes' },
      { metric: 'files', title: 'files listed' },
    ]),
  ];
}

/** One row per case: this run's outcome beside seed 003's, differences marked. */
function permissionsSection(run: LoadedRun, samples: readonly Sample[]): string[] {
  const out = [
    'A container running as uid 65534 writes into `/data`. Owner and mode of the directory as `uid:gid mode`, seen inside the container and on the host. "seed" is what seed 003 observed.',
    '',
  ];
  out.push(
    ...perHost(
      run,
      samples.filter((s) => s.metric === 'wrote'),
      (hostSamples) => {
        const rows = [
          '| case | user | wrote | seed | inside | outside | error | n |',
          '|---|---|---|---|---|---|---|---:|',
        ];
        for (const c of PERMISSION_CASES) {
          const runs = hostSamples.filter((s) => s.case === c.name);
          if (!runs.length) continue;
          const outcomes = [...new Set(runs.map((s) => (s.value === 1 ? 'yes' : 'no')))];
          const seed = c.seed.wrote ? 'yes' : 'no';
          const same = outcomes.length === 1 && outcomes[0] === seed;
          const first = runs[0] as Sample;
          rows.push(
            `| ${c.name} | ${md(first.user ?? '')} | ${outcomes.join(' / ')} | ${seed}${same ? '' : ' — **differs**'} | ${md(first.inside ?? '')} | ${md(first.outside ?? '')} | ${md(String(first.error ?? '') || '–')} | ${runs.length} |`,
          );
        }
        return rows;
      },
    ),
  );
  return out;
}

/** Survived: how many repetitions found the file, per phase and place. */
function lifetimeSection(run: LoadedRun, samples: readonly Sample[]): string[] {
  const out = [
    'A file written into the container layer, a named volume and a bind mount; then the container is restarted, and separately removed and recreated with the same mounts. Cells: repetitions in which the file was still there.',
    '',
  ];
  out.push(
    ...perHost(run, samples, (hostSamples) => [
      `| after | ${LIFETIME_PLACES.join(' | ')} |`,
      `|---|${LIFETIME_PLACES.map(() => '---').join('|')}|`,
      ...LIFETIME_PHASES.map((phase) => {
        const row = LIFETIME_PLACES.map((place) => {
          const runs = hostSamples.filter((s) => s.phase === phase && s.place === place);
          const kept = runs.filter((s) => s.value === 1).length;
          return runs.length ? `${kept}/${runs.length}` : '–';
        });
        return `| ${phase} | ${row.join(' | ')} |`;
      }),
    ]),
  );
  return out;
}

const SECTIONS: Record<string, (run: LoadedRun, samples: readonly Sample[]) => string[]> = {
  fio: fioSection,
  dbench: dbenchSection,
  'db-import': dbImportSection,
  lifecycle: lifecycleSection,
  backup: backupSection,
  permissions: permissionsSection,
  lifetime: lifetimeSection,
};

export function scenarioSection(name: string, run: LoadedRun, samples: readonly Sample[]): string[] {
  return SECTIONS[name]?.(run, samples) ?? [];
}
