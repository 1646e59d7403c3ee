/**
 * The seed-claim answers of report.md, on made-up runs whose answer is known:
 * a clear gap in the claimed direction, the opposite gap, and noise only.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeRun } from '../../../lab/analyze/analysis.ts';
import { CONTAINER_NETWORK } from '../../../lab/catalog.ts';
import { type LoadedRun, recordedLab } from '../../../lab/record/load.ts';
import type { Sample } from '../../../lab/record/samples.ts';
import { answerClaims, calibrationRows, calibrationSection } from '../../../lab/report/claims.ts';
import { renderMarkdown } from '../../../lab/report/markdown.ts';
import { SEED_HOSTS, sample as fixtureSample, reps } from '../claim-fixture.ts';
import { runInMemory } from '../run-fixture.ts';

const HOSTS = SEED_HOSTS;

/** claim-fixture's sample, in seconds (the claims these tests make are about time). */
const sample = (
  host: string,
  scenario: string,
  mount: string,
  rep: number,
  metric: string,
  value: number,
  labels: Record<string, string>,
): Sample => ({ ...fixtureSample(HOSTS, host, scenario, mount, rep, metric, value, labels), unit: 's' });

const run = (samples: Sample[], hosts = HOSTS) =>
  runInMemory(samples, { hosts, mounts: ['layer', 'volume', 'bind', 'hostshare'] });

function lifecycle(dmRun: number, dmRm: number): Sample[] {
  const out: Sample[] = [];
  for (const [host, runS, rmS] of [
    ['xfs', 10, 1],
    ['dm', dmRun, dmRm],
  ] as const) {
    reps(runS).forEach((v, i) => out.push(sample(host, 'lifecycle', 'none', i + 1, 'seconds', v, { phase: 'run' })));
    reps(rmS).forEach((v, i) => out.push(sample(host, 'lifecycle', 'none', i + 1, 'seconds', v, { phase: 'rm' })));
  }
  return out;
}

/** What the report builder gives the claims: the analysis and the lab as recorded. */
const context = (r: LoadedRun) => ({ analysis: analyzeRun(r), lab: recordedLab(r) });

const answer = (samples: Sample[], seed: string, hosts = HOSTS) =>
  answerClaims(context(run(samples, hosts))).find((a) => a.seed === seed);

describe('seed claims', () => {
  it('004 is confirmed when devicemapper is slower to run and to remove, contradicted when faster', () => {
    assert.equal(answer(lifecycle(40, 5), '004')?.answer, 'confirmed');
    const faster = answer(lifecycle(5, 5), '004');
    assert.equal(faster?.answer, 'contradicted');
    assert.ok(
      faster?.evidence.some((e) => /seconds of run: xfs vs dm \(mount none\)/.test(e)),
      faster?.evidence.join('\n'),
    );
    assert.equal(answer(lifecycle(10, 1), '004')?.answer, 'not shown', 'no gap: not shown');
  });

  it("004 judges size too: the seed's 5.16× (run: 38.832 / 7.530 s) and 11.1× (rm: 2.289 / 0.206 s) against our intervals", () => {
    const smaller = answer(lifecycle(40, 5), '004');
    assert.equal(smaller?.size, 'contradicted', smaller?.evidence.join('\n'));
    assert.ok(
      smaller?.evidence.some((e) =>
        /size contradicted: the seed's 5\.16× lies above our 3\.\d\d×–4\.\d\d× \(estimate 4\.00×\)/.test(e),
      ),
      smaller?.evidence.join('\n'),
    );
    const asSeed = answer(lifecycle(51.6, 11.1), '004');
    assert.equal(asSeed?.answer, 'confirmed');
    assert.equal(asSeed?.size, 'as the seed', asSeed?.evidence.join('\n'));
  });

  it("004's container network: same as the seed in a run that recorded aws's default bridge; unlike with none or nothing recorded", () => {
    const networkLine = (containerNetwork?: 'default' | 'none') => {
      const r = run(lifecycle(40, 5));
      const recorded = containerNetwork ? { ...r, manifest: { ...r.manifest, containerNetwork } } : r;
      return answerClaims(context(recorded))
        .find((a) => a.seed === '004')
        ?.parameters?.find((p) => p.label === 'container network');
    };
    assert.equal(networkLine(CONTAINER_NETWORK.aws)?.same, true, "aws: the seed's default bridge");
    assert.equal(networkLine(CONTAINER_NETWORK.local)?.same, false, 'local: --network none');
    assert.equal(networkLine(CONTAINER_NETWORK.static)?.same, false, 'static: --network none');
    const before = networkLine();
    assert.equal(before?.same, false, 'a run from before the manifest recorded it ran --network none');
    assert.match(before?.run ?? '', /^`docker run --network none`/);
  });

  it('004 is not shown with 3 runs per side (they cannot show a difference), and absent without a devicemapper host', () => {
    const few = lifecycle(40, 5).filter((s) => s.rep <= 3);
    const a = answer(few, '004');
    assert.equal(a?.answer, 'not shown');
    assert.equal(a?.size, 'not shown');
    assert.ok(
      a?.evidence.some((e) => /too few runs to show a difference at 95% \(4 per side can\)/.test(e)),
      'says why',
    );
    assert.equal(
      answer(
        lifecycle(40, 5).filter((s) => s.host === 'xfs'),
        '004',
      ),
      undefined,
    );
  });

  it('002: hostshare slower than every VM-local mount for dbench; faster contradicts it', () => {
    const samples: Sample[] = [];
    for (const mount of ['layer', 'volume', 'hostshare'])
      reps(mount === 'hostshare' ? 5 : 40).forEach((v, i) =>
        samples.push(sample('xfs', 'dbench', mount, i + 1, 'throughput', v, { op: 'all' })),
      );
    const a = answer(samples, '002');
    assert.equal(a?.answer, 'confirmed', a?.evidence.join('\n'));
    assert.equal(a?.evidence.length, 2, 'layer and volume, each against hostshare');
    const fastShare = samples.map((s) => (s.mount === 'hostshare' ? { ...s, value: s.value * 20 } : s));
    assert.equal(answer(fastShare, '002')?.answer, 'contradicted');
  });

  it("000: the import into a named volume slower than into hostshare is the seed's direction", () => {
    const importOn = (volumeSeconds: number, shareSeconds: number) =>
      ['layer', 'volume', 'hostshare'].flatMap((mount) =>
        reps(mount === 'hostshare' ? shareSeconds : volumeSeconds).map((v, i) =>
          sample('xfs', 'db-import', mount, i + 1, 'seconds', v, {}),
        ),
      );
    const asSeed = answer(importOn(250, 20), '000');
    assert.equal(asSeed?.answer, 'confirmed', asSeed?.evidence.join('\n'));
    assert.equal(asSeed?.evidence.length, 1, 'only volume vs hostshare: the seed compared nothing else');
    assert.match(asSeed?.evidence[0] ?? '', /seconds: volume vs hostshare on host xfs/);
    assert.equal(answer(importOn(10, 60), '000')?.answer, 'contradicted');
    assert.equal(answer(importOn(10, 10), '000')?.answer, 'not shown');
  });

  it('003 (fio): no gap within ±10% is confirmed; a gap beyond it contradicts; too wide intervals are not shown', () => {
    const fio = (volumeFactor: number, jobs = ['seqread', 'randread', 'seqwrite', 'randwrite']) => {
      const out: Sample[] = [];
      for (const job of ['seqread', 'randread', 'seqwrite', 'randwrite'])
        for (const mount of ['layer', 'volume', 'bind'])
          reps(1000 * (mount === 'volume' && jobs.includes(job) ? volumeFactor : 1)).forEach((v, i) =>
            out.push(sample('xfs', 'fio', mount, i + 1, 'bw', v, { job, direction: 'read' })),
          );
      return out;
    };
    const same = answer(fio(1), '003');
    assert.equal(same?.answer, 'confirmed', same?.evidence.join('\n'));
    assert.match(
      same?.evidence[0] ?? '',
      /12 bandwidth comparisons .*: 12 within ±10% \(90% interval\), 0 with a difference beyond it/,
    );
    assert.equal(answer(fio(2), '003')?.answer, 'contradicted');
    // One job 2× apart: a real gap, however many other jobs agree.
    const oneJob = answer(fio(2, ['randread']), '003');
    assert.equal(oneJob?.answer, 'contradicted', oneJob?.evidence.join('\n'));
    assert.equal(oneJob?.evidence.length, 3, 'the summary and the two rows beyond the margin');
    // A 3% gap is no gap larger than 10%.
    assert.equal(answer(fio(1.03), '003')?.answer, 'confirmed');
    // Three runs bound nothing: not shown, and says so.
    const three = answer(
      fio(1).filter((s) => s.rep <= 3),
      '003',
    );
    assert.equal(three?.answer, 'not shown');
    assert.match(
      three?.evidence.at(-1) ?? '',
      /intervals are unbounded: this run cannot rule out any gap \(4 per side bound them\)/,
    );
    // On devicemapper the layer and the volumes are on different disks: not this claim's question.
    const dmOnly = fio(2).map((s) => ({ ...s, host: 'dm', profile: 'devicemapper-lvm' }));
    assert.equal(answer(dmOnly, '003'), undefined);
  });

  it('003 (permissions): every outcome as in the seed, or the differing cases named', () => {
    const perms = (hostUserDirWrote: number) =>
      [
        ['missing-host-path', 0],
        ['host-user-dir', hostUserDirWrote],
        ['chown-fix', 1],
      ].map(([c, v]) => sample('xfs', 'permissions', 'none', 1, 'wrote', Number(v), { case: String(c) }));
    const same = answerClaims(context(run(perms(0)))).find((a) => a.claim.includes('uid-65534'));
    assert.equal(same?.answer, 'confirmed');
    const differs = answerClaims(context(run(perms(1)))).find((a) => a.claim.includes('uid-65534'));
    assert.equal(differs?.answer, 'contradicted');
    assert.deepEqual(differs?.evidence, [
      '2 of 3 cases as in seed 003 on every host and repetition',
      'host-user-dir: wrote in 1 of 1 trials; seed 003: denied',
    ]);
  });
});

describe('seed 003 backup: methods compared with each other', () => {
  /** Backup seconds on host xfs: the two host methods at `host`, the helper container at `helper`. */
  const backup = (host: number, helper: number, volume = host) =>
    (
      [
        ['host-bind', host],
        ['host-volume', volume],
        ['helper-container', helper],
      ] as const
    ).flatMap(([method, base]) =>
      reps(base).map((v, i) => sample('xfs', 'backup', 'none', i + 1, 'seconds', v, { method })),
    );
  const backupAnswer = (samples: Sample[]) =>
    answerClaims(context(run(samples))).find((a) => a.claim.includes('helper container'));

  it('the helper container slower than both host methods is confirmed; faster contradicts; the same is not shown', () => {
    const slower = backupAnswer(backup(4, 6));
    assert.equal(slower?.answer, 'confirmed', slower?.evidence.join('\n'));
    assert.equal(slower?.seed, '003');
    assert.deepEqual(
      slower?.evidence.slice(0, 2).map((e) => e.split(' — ')[0]),
      ['seconds: host-bind vs helper-container on host xfs', 'seconds: host-volume vs helper-container on host xfs'],
    );
    assert.equal(backupAnswer(backup(4, 3))?.answer, 'contradicted');
    const same = backupAnswer(backup(4, 4));
    assert.equal(same?.answer, 'not shown', same?.evidence.join('\n'));
    // Slower than one host method only is not the claim.
    assert.equal(backupAnswer(backup(4, 6, 8))?.answer, 'contradicted');
  });

  it("judges size against the seed's 6.19 s over 4.36 s and 4.30 s", () => {
    const asSeed = backupAnswer(backup(4.36, 6.19, 4.3));
    assert.equal(asSeed?.size, 'as the seed', asSeed?.evidence.join('\n'));
    assert.match(asSeed?.evidence[0] ?? '', /size: the seed's 1\.42× lies inside our/);
    assert.equal(backupAnswer(backup(4, 12))?.size, 'contradicted');
  });

  it("the method rows are controlled in the report's family: a gap that stands alone is not claimed among many", () => {
    const alone = backupAnswer(backup(4, 5));
    assert.equal(alone?.answer, 'confirmed', alone?.evidence.join('\n'));
    // Twelve fio comparisons with no difference join the family: p 0.008 of two rows becomes q 0.008 × 15 / 2 > 0.05.
    const fio = ['seqread', 'randread', 'seqwrite', 'randwrite'].flatMap((job) =>
      ['layer', 'volume', 'bind'].flatMap((mount) =>
        reps(1000).map((v, i) => sample('xfs', 'fio', mount, i + 1, 'bw', v, { job, direction: 'read' })),
      ),
    );
    const among = backupAnswer([...backup(4, 5), ...fio]);
    assert.equal(among?.answer, 'not shown', among?.evidence.join('\n'));
    assert.match(among?.evidence[0] ?? '', /no consistent difference once the report's 15 comparisons are controlled/);
    const backupRows = context(run([...backup(4, 5), ...fio])).analysis.find((a) => a.name === 'backup')?.comparisons;
    assert.deepEqual(
      backupRows?.filter((r) => r.axis === 'series').map((r) => [r.axis, r.series, r.a, r.b, r.result.family]),
      [
        ['series', 'method', 'host-bind', 'host-volume', 15],
        ['series', 'method', 'host-bind', 'helper-container', 15],
        ['series', 'method', 'host-volume', 'helper-container', 15],
      ],
    );
  });

  it('are no calibration pair, even where a host is named like a method', () => {
    const r = run(backup(4, 4.8));
    (r.manifest.lab as { equivalent?: [string, string][] }).equivalent = [['host-bind', 'helper-container']];
    assert.deepEqual(calibrationRows(context(r)), []);
  });
});

describe('calibration check (A/A pairs inside every run)', () => {
  const fio = (volumeFactor: number, n = 5) => {
    const out: Sample[] = [];
    for (const mount of ['layer', 'volume', 'bind'])
      reps(1000 * (mount === 'volume' ? volumeFactor : 1))
        .slice(0, n)
        .forEach((v, i) =>
          out.push(sample('xfs', 'fio', mount, i + 1, 'bw', v, { job: 'seqread', direction: 'read' })),
        );
    return out;
  };
  const section = (samples: Sample[]) => {
    const section = calibrationSection(calibrationRows(context(run(samples))));
    return renderMarkdown({ title: 't', sections: section ? [section] : [] });
  };

  it('volume vs bind agreeing is a calibrated run; a difference there is a warning, not a finding', () => {
    assert.match(section(fio(1)), /None of 1 shows a difference: consistent with a calibrated run/);
    const warned = section(fio(1.5));
    assert.match(warned, /\*\*Warning: 1 of 1 show a difference\.\*\*/);
    assert.match(warned, /- bw of seqread\/read: volume vs bind on host xfs — volume is 50% higher/);
    assert.match(section(fio(1, 3)), /None had enough runs to show anything \(4 per side can\)/);
  });

  it("the lab's own equivalent pairs are checked too", () => {
    const r = run(fio(1));
    (r.manifest.lab as { equivalent?: [string, string][] }).equivalent = [['layer', 'bind']];
    const rows = calibrationRows(context(r));
    assert.deepEqual(
      rows.map((x) => `${x.a}/${x.b}`),
      ['layer/bind', 'volume/bind'],
    );
  });
});

describe('seed claims in the report', () => {
  it('are listed in their fixed order whatever order the scenarios register in: 004, 003 (fio), 000, 002, 003 (permissions, host user), 003 (backup)', () => {
    const samples: Sample[] = [
      ...lifecycle(40, 5),
      ...['layer', 'volume', 'bind', 'hostshare'].flatMap((mount) =>
        reps(1000).map((v, i) => sample('xfs', 'fio', mount, i + 1, 'bw', v, { job: 'seqread', direction: 'read' })),
      ),
      ...['volume', 'hostshare'].flatMap((mount) =>
        reps(mount === 'volume' ? 250 : 20).map((v, i) => sample('xfs', 'db-import', mount, i + 1, 'seconds', v, {})),
      ),
      ...['layer', 'hostshare'].flatMap((mount) =>
        reps(mount === 'hostshare' ? 5 : 40).map((v, i) =>
          sample('xfs', 'dbench', mount, i + 1, 'throughput', v, { op: 'all' }),
        ),
      ),
      sample('xfs', 'permissions', 'none', 1, 'wrote', 0, { case: 'missing-host-path' }),
      sample('xfs', 'permissions', 'none', 1, 'wrote', 1, { case: 'fresh-volume' }),
      sample('xfs', 'permissions', 'none', 1, 'host_list', 0, { case: 'fresh-volume' }),
      ...['host-bind', 'host-volume', 'helper-container'].flatMap((method) =>
        reps(method === 'helper-container' ? 6 : 4).map((v, i) =>
          sample('xfs', 'backup', 'none', i + 1, 'seconds', v, { method }),
        ),
      ),
    ];
    const answers = answerClaims(context(run(samples)));
    assert.deepEqual(
      answers.map((a) => `${a.seed} ${a.claim.split(' ').slice(0, 2).join(' ')}`),
      [
        '004 devicemapper (direct-lvm)',
        '003 no fio',
        '000 the MySQL',
        '002 dbench on',
        '003 a uid-65534',
        '003 the host',
        '003 tar czf',
        '003 tar czf',
      ],
    );
  });
});
