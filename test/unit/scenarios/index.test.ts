/**
 * "A scenario is one folder": every scenario in the registry has what the lab
 * needs of it — its guest script, parser, real-output fixtures, report
 * section, seed claims (or an explicit empty list) and tool image recipes —
 * and every scenario folder is registered. The checks take their roots as
 * arguments, so the last test can show that they fail on a folder that lacks
 * something. Then the parsers of every scenario but fio (fio/parse.test.ts)
 * on raw files that the real tools wrote on a lab VM (test/fixtures/<scenario>/
 * README.md says how each was made).
 */
import assert from 'node:assert/strict';
import { constants, accessSync, cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseLabDefinition } from '../../../lab/definition/load.ts';
import { toolImageNames } from '../../../lab/phases/tool-images.ts';
import { makePlan } from '../../../lab/plan/plan.ts';
import type { RecordedLab } from '../../../lab/record/load.ts';
import type { Sample } from '../../../lab/record/samples.ts';
import { renderMarkdown } from '../../../lab/report/markdown.ts';
import { trialEnv } from '../../../lab/run/trial-env.ts';
import { SCENARIOS, SCENARIO_NAMES } from '../../../lab/scenarios/index.ts';
import { PERMISSION_CASES } from '../../../lab/scenarios/permissions/cases.ts';
import type { MeasuredValue, Scenario } from '../../../lab/scenarios/types.ts';
import { readRecipe } from '../../../lab/toolimages/toolimages.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const ROOTS = { scenarios: join(ROOT, 'lab', 'scenarios'), fixtures: join(ROOT, 'test', 'fixtures') };

/** Fixtures of outputs that must be refused (a failed tool, a short result); every other fixture must parse cleanly. */
const MEANT_TO_FAIL: Record<string, readonly string[]> = {
  fio: ['enospc-errors-before-json.json', 'enospc-single-job.json', 'no-json.txt'],
  dbench: ['killed.txt'],
  'db-import': ['rows-uncounted.tsv'],
};

function guestScriptProblems(dir: string, scenario: Scenario): string[] {
  const path = join(dir, 'guest.sh');
  if (!existsSync(path)) return [`no ${path}`];
  const script = readFileSync(path, 'utf8');
  const problems: string[] = [];
  if (!script.startsWith('#!/usr/bin/env bash\n')) problems.push(`${path}: does not start with #!/usr/bin/env bash`);
  if (!script.includes('set -euo pipefail')) problems.push(`${path}: no set -euo pipefail`);
  if (!script.includes(`$LL_OUT/${scenario.rawFile}`))
    problems.push(`${path}: never writes $LL_OUT/${scenario.rawFile}`);
  try {
    accessSync(path, constants.X_OK);
  } catch {
    problems.push(`${path}: not executable`);
  }
  return problems;
}

/** The good fixtures' parsed values (for the report section check), and what is wrong with the fixtures. */
function fixtureProblems(dir: string, scenario: Scenario): { problems: string[]; good: Sample[] } {
  if (!existsSync(dir)) return { problems: [`no fixtures folder ${dir}`], good: [] };
  const problems: string[] = [];
  const readme = existsSync(join(dir, 'README.md')) ? readFileSync(join(dir, 'README.md'), 'utf8') : '';
  if (!readme) problems.push(`${dir}: no README.md saying how the fixtures were made`);
  const files = readdirSync(dir).filter((f) => f !== 'README.md');
  const bad = MEANT_TO_FAIL[scenario.name] ?? [];
  const good: Sample[] = [];
  for (const file of files) {
    if (readme && !readme.includes(file)) problems.push(`${dir}/${file}: not described in README.md`);
    const { values, failures } = scenario.parse(readFileSync(join(dir, file), 'utf8'));
    if (bad.includes(file)) {
      if (!failures.length) problems.push(`${dir}/${file}: meant to be refused, but parses without failures`);
      continue;
    }
    if (failures.length) problems.push(`${dir}/${file}: parse failures ${failures.join('; ')}`);
    else if (!values.length) problems.push(`${dir}/${file}: parses to no values`);
    else if (!good.length) good.push(...values.map((v) => sampleOf(scenario, v)));
  }
  if (!good.length) problems.push(`${dir}: no fixture of a good run (raw output that parses without failures)`);
  for (const file of bad) if (!files.includes(file)) problems.push(`${dir}/${file}: listed as meant to fail, missing`);
  return { problems, good };
}

const LAB: RecordedLab = {
  name: 'registry',
  hosts: [{ name: 'h1', profile: 'overlay2-xfs' }],
  mounts: ['layer', 'volume', 'bind', 'hostshare'],
  scenarioMounts: {},
  equivalent: [],
  scenarios: {},
  scenarioRepetitions: {},
};

function sampleOf(
  scenario: Scenario,
  v: { metric: string; value: number; unit: string; labels: Record<string, string> },
) {
  return {
    run: 'r',
    host: 'h1',
    profile: 'overlay2-xfs',
    scenario: scenario.name,
    mount: scenario.mounts[0] ?? 'none',
    rep: 1,
    trial: `r1-h1-${scenario.name}`,
    metric: v.metric,
    value: v.value,
    unit: v.unit,
    timestamp: '',
    ...v.labels,
  };
}

/** The section renders the good fixture's values under the host's heading; claims are a list of positioned rules. */
function reportProblems(scenario: Scenario, good: readonly Sample[]): string[] {
  const problems: string[] = [];
  const { report } = scenario;
  if (typeof report?.section !== 'function') return [`${scenario.name}: no report section`];
  if (!Array.isArray(report.claims)) problems.push(`${scenario.name}: report.claims is not a list (use [] for none)`);
  for (const rule of report.claims ?? [])
    if (!Number.isFinite(rule.position) || typeof rule.answer !== 'function')
      problems.push(`${scenario.name}: a claim without a position or an answer`);
  if (!good.length) return problems;
  const own = report.section({ lab: LAB, samples: good, comparisons: [] });
  const md = renderMarkdown({
    title: 't',
    sections: [{ level: 2, title: [{ text: scenario.summary }], blocks: own.blocks }, ...own.sections],
  });
  if (!/^### h1 \(overlay2-xfs\)$/m.test(md) || !/^\| .* \|$/m.test(md))
    problems.push(`${scenario.name}: its report section shows no table for the fixture's host:\n${md}`);
  return problems;
}

function toolImageProblems(scenario: Scenario): string[] {
  return scenario.toolImages.flatMap((name) => {
    try {
      readRecipe(name);
      return [];
    } catch (err) {
      return [`${scenario.name}: tool image ${name}: ${(err as Error).message}`];
    }
  });
}

/**
 * A claim's seed parameters name parameters the scenario has (a misspelt
 * path would read "not recorded" in every report); series compared with each
 * other belong to a scenario without mount kinds and are series its parser
 * labels.
 */
function seedAndSeriesProblems(scenario: Scenario, good: readonly Sample[]): string[] {
  const problems: string[] = [];
  const defaults = scenario.params.parse({});
  for (const rule of scenario.report.claims)
    for (const p of rule.seedParameters ?? []) {
      if (!('param' in p.run)) continue;
      const value = p.run.param.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown>)?.[k], defaults);
      if (value === undefined)
        problems.push(`${scenario.name}: seed parameter ${p.label} names ${p.run.param}, no parameter of the scenario`);
    }
  const series = scenario.compareSeries;
  if (series) {
    if (scenario.mounts.length) problems.push(`${scenario.name}: compareSeries on a scenario with mount kinds`);
    const labelled = new Set(good.map((s) => s[series.label]));
    for (const name of series.order)
      if (good.length && !labelled.has(name))
        problems.push(`${scenario.name}: no ${series.label} ${name} in the fixture`);
  }
  return problems;
}

/** A scenario that compares metrics names one of them for the report's matrix; one that compares none names none. */
function matrixMetricProblems(scenario: Scenario): string[] {
  const compared = scenario.metrics.filter((m) => m.compare).map((m) => m.name);
  if (scenario.matrixMetric === undefined)
    return compared.length ? [`${scenario.name}: no matrixMetric (one of ${compared.join(', ')})`] : [];
  return compared.includes(scenario.matrixMetric)
    ? []
    : [
        `${scenario.name}: matrixMetric ${scenario.matrixMetric} is not a compared metric (${compared.join(', ') || 'none'})`,
      ];
}

/** Everything missing or wrong in one scenario's folder, fixtures and registration. */
function scenarioProblems(key: string, scenario: Scenario, roots: typeof ROOTS): string[] {
  const dir = join(roots.scenarios, key);
  const files = ['scenario.ts', 'parse.ts', 'report.ts']
    .filter((f) => !existsSync(join(dir, f)))
    .map((f) => `no ${join(dir, f)}`);
  const fixtures = fixtureProblems(join(roots.fixtures, key), scenario);
  return [
    ...(scenario.name === key ? [] : [`registered as ${key} but named ${scenario.name}`]),
    ...files,
    ...guestScriptProblems(dir, scenario),
    ...(typeof scenario.parse === 'function' ? [] : [`${key}: no parser`]),
    ...fixtures.problems,
    ...reportProblems(scenario, fixtures.good),
    ...seedAndSeriesProblems(scenario, fixtures.good),
    ...matrixMetricProblems(scenario),
    ...toolImageProblems(scenario),
  ];
}

describe('scenario registry', () => {
  for (const name of SCENARIO_NAMES) {
    it(`${name}: guest script, parser, fixtures, report section, claims, tool images`, () => {
      assert.deepEqual(scenarioProblems(name, SCENARIOS[name], ROOTS), []);
    });
  }

  it('every scenario folder is registered (an unregistered folder would silently never run)', () => {
    const folders = readdirSync(ROOTS.scenarios, { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(ROOTS.scenarios, d.name, 'scenario.ts')))
      .map((d) => d.name);
    assert.deepEqual(folders.sort(), [...SCENARIO_NAMES].sort());
    const fixtureFolders = readdirSync(ROOTS.fixtures).filter((f) => !f.includes('.'));
    assert.deepEqual(fixtureFolders.sort(), [...SCENARIO_NAMES].sort(), 'a fixture folder per scenario, no strays');
  });

  it('seed claims have distinct positions (the report lists them in that order)', () => {
    const positions = Object.values(SCENARIOS).flatMap((s) => s.report.claims.map((c) => c.position));
    assert.equal(new Set(positions).size, positions.length, `positions: ${positions.join(', ')}`);
  });

  describe('the checks fail on a folder that lacks something', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'layerlab-registry-'));
    after(() => rmSync(tmp, { recursive: true, force: true }));
    const roots = { scenarios: join(tmp, 'scenarios'), fixtures: join(tmp, 'fixtures') };
    cpSync(join(ROOTS.scenarios, 'lifetime'), join(roots.scenarios, 'lifetime'), { recursive: true });
    cpSync(join(ROOTS.fixtures, 'lifetime'), join(roots.fixtures, 'lifetime'), { recursive: true });

    it('a copy of a good folder has no problems', () => {
      assert.deepEqual(scenarioProblems('lifetime', SCENARIOS.lifetime, roots), []);
    });

    it('without guest.sh, report.ts, fixtures, a tool image or a report section', () => {
      rmSync(join(roots.scenarios, 'lifetime', 'guest.sh'));
      rmSync(join(roots.scenarios, 'lifetime', 'report.ts'));
      rmSync(join(roots.fixtures, 'lifetime'), { recursive: true });
      const broken = {
        ...SCENARIOS.lifetime,
        toolImages: ['no-such-image'],
        matrixMetric: 'seconds',
        report: { section: () => ({ blocks: [], sections: [] }), claims: [] },
      };
      const problems = scenarioProblems('lifetime', broken, roots);
      const expect = [
        'no .*guest\\.sh',
        'no .*report\\.ts',
        'no fixtures folder',
        'tool image no-such-image',
        'matrixMetric seconds is not a compared metric',
      ];
      for (const pattern of expect)
        assert.ok(
          problems.some((p) => new RegExp(pattern).test(p)),
          `${pattern} in:\n${problems.join('\n')}`,
        );
      cpSync(join(ROOTS.fixtures, 'lifetime'), join(roots.fixtures, 'lifetime'), { recursive: true });
      assert.ok(
        scenarioProblems('lifetime', broken, roots).some((p) => /report section shows no table/.test(p)),
        'an empty section is refused',
      );
    });
  });
});

describe('tool images a parameter adds', () => {
  const lab = (image: string, churnContainers = 5) =>
    parseLabDefinition(
      `name: t\nhosts: [{ name: a, profile: overlay2-xfs }]\nscenarios: { lifecycle: { image: ${image}, churnContainers: ${churnContainers} } }\nmounts: [layer]\nrepetitions: 1\n`,
      't.yaml',
    );

  it("lifecycle's large image is loaded only when a lab asks for it, and its trials get its tag", () => {
    assert.deepEqual(toolImageNames(lab('small')).sort(), ['churn', 'shell']);
    assert.deepEqual(toolImageNames(lab('large')).sort(), ['churn', 'large', 'shell']);
    assert.equal(readRecipe('large').rootfs, 'full', 'a whole Debian rootfs');
    const [trial] = makePlan(lab('large')).trials;
    assert.ok(trial, 'a lifecycle trial');
    const env = trialEnv(trial, lab('large'), {
      shell: 'layerlab/shell:1',
      churn: 'layerlab/churn:1',
      large: 'layerlab/large:1',
    });
    assert.equal(env.LL_IMAGE_LARGE, 'layerlab/large:1');
    assert.equal(env.LL_IMAGE_CHURN, 'layerlab/churn:1', 'a churning trial gets the churn tag');
    assert.equal(env.LL_P_IMAGE, 'large');
    assert.throws(
      () => trialEnv(trial, lab('large'), { shell: 'layerlab/shell:1', churn: 'layerlab/churn:1' }),
      /tool image large was not loaded/,
    );
  });

  it("lifecycle's churn image is loaded only when its trials churn", () => {
    assert.deepEqual(toolImageNames(lab('small', 0)), ['shell'], 'churnContainers: 0 loads the shell image alone');
    const [trial] = makePlan(lab('small', 0)).trials;
    assert.ok(trial, 'a lifecycle trial');
    const env = trialEnv(trial, lab('small', 0), { shell: 'layerlab/shell:1' });
    assert.equal(env.LL_IMAGE_CHURN, undefined, 'no churn tag without churn');
    assert.equal(env.LL_P_CHURN_CONTAINERS, '0');
  });
});

const fixture = (scenario: string, name: string) => readFileSync(join(ROOTS.fixtures, scenario, name), 'utf8');
const value = (values: MeasuredValue[], metric: string, labels: Record<string, string> = {}) =>
  values.find((v) => v.metric === metric && Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value;

describe('scenario parsers on real outputs', () => {
  it('dbench: the final table per operation and the throughput line (MB/s, ms)', () => {
    const raw = fixture('dbench', 'two-clients.txt');
    const { values, failures } = SCENARIOS.dbench.parse(raw);
    assert.deepEqual(failures, []);
    const line = /^Throughput ([\d.]+) MB\/sec\s+2 clients\s+2 procs\s+max_latency=([\d.]+) ms$/m.exec(raw);
    assert.ok(line, 'the fixture has its throughput line');
    assert.equal(value(values, 'throughput'), Number(line[1]));
    assert.equal(value(values, 'max_latency'), Number(line[2]));
    assert.equal(value(values, 'clients'), 2);
    const ntcreate = /^ NTCreateX\s+(\d+)\s+([\d.]+)\s+([\d.]+)$/m.exec(raw);
    assert.ok(ntcreate, 'the fixture has an NTCreateX row');
    assert.equal(value(values, 'op_count', { op: 'NTCreateX' }), Number(ntcreate[1]));
    assert.equal(value(values, 'op_avg_latency', { op: 'NTCreateX' }), Number(ntcreate[2]));
    assert.equal(value(values, 'op_max_latency', { op: 'NTCreateX' }), Number(ntcreate[3]));
    const ops = new Set(values.filter((v) => v.metric === 'op_count').map((v) => v.labels.op));
    assert.ok(ops.size >= 10 && ops.has('Flush') && ops.has('ReadX'), `operations: ${[...ops].join(' ')}`);
  });

  it('dbench: a run that was killed before its final table is a failure', () => {
    const { values, failures } = SCENARIOS.dbench.parse(fixture('dbench', 'killed.txt'));
    assert.deepEqual(values, []);
    assert.match(failures[0] ?? '', /no final operation table in dbench output/);
  });

  it('db-import: import seconds, rows per second, and every table counted in full', () => {
    const { values, failures } = SCENARIOS['db-import'].parse(fixture('db-import', 'imported.tsv'));
    assert.deepEqual(failures, []);
    const seconds = value(values, 'seconds') ?? 0;
    assert.ok(seconds > 0, 'seconds > 0');
    const [, page, revision, text] =
      /page=(\d+)\/\d+,revision=(\d+)\/\d+,text=(\d+)\/\d+/.exec(fixture('db-import', 'imported.tsv')) ?? [];
    assert.equal(value(values, 'rows_per_second'), (Number(page) + Number(revision) + Number(text)) / seconds);
  });

  it('db-import: an import whose tables were not all counted fails (a bug this fixture caught)', () => {
    const { failures } = SCENARIOS['db-import'].parse(fixture('db-import', 'rows-uncounted.tsv'));
    assert.deepEqual(failures, ['no row count for table revision', 'no row count for table text']);
  });

  it('db-import: a short table is a failure, not a fast import', () => {
    const short = fixture('db-import', 'imported.tsv').replace(
      /revision=(\d+)\//,
      (_, n) => `revision=${Number(n) - 1}/`,
    );
    const { failures } = SCENARIOS['db-import'].parse(short);
    assert.match(failures[0] ?? '', /table revision has \d+ rows after the import, the dump has \d+/);
  });

  it('lifecycle: seconds per phase, churn included', () => {
    const { values, failures } = SCENARIOS.lifecycle.parse(fixture('lifecycle', 'three-containers-churn.tsv'));
    assert.deepEqual(failures, []);
    assert.deepEqual(
      values.map((v) => v.labels.phase),
      ['run', 'inspect', 'stop', 'rm', 'install', 'remove'],
    );
    assert.ok(
      values.every((v) => v.metric === 'seconds' && v.value > 0),
      'seconds > 0 everywhere',
    );
  });

  it('lifecycle: a trial cut off after docker run lacks phases and fails', () => {
    const cut = fixture('lifecycle', 'three-containers-churn.tsv').split('\n').slice(0, 2).join('\n');
    assert.deepEqual(SCENARIOS.lifecycle.parse(cut).failures, [
      'lifecycle.tsv has no inspect phase',
      'lifecycle.tsv has no stop phase',
      'lifecycle.tsv has no rm phase',
    ]);
  });

  it('permissions: the seven cases with owner, mode and error text as labels', () => {
    const { values, failures } = SCENARIOS.permissions.parse(fixture('permissions', 'seven-cases.tsv'));
    assert.deepEqual(failures, []);
    const wrote = values.filter((v) => v.metric === 'wrote');
    assert.deepEqual(
      wrote.map((v) => v.labels.case),
      PERMISSION_CASES.map((c) => c.name),
    );
    const denied = wrote.find((v) => v.labels.case === 'host-user-dir');
    assert.equal(denied?.value, 0);
    assert.equal(denied?.labels.outside, '1000:1000 775');
    assert.match(denied?.labels.error ?? '', /Permission denied/);
    assert.equal(value(values, 'exit_status', { case: 'chown-fix' }), 0);
  });

  it('permissions: a row whose exit status and written file disagree is a broken probe', () => {
    const raw = fixture('permissions', 'seven-cases.tsv').replace(/^(chown-fix\t[^\t]+\t)0\t1/m, '$12\t1');
    assert.deepEqual(SCENARIOS.permissions.parse(raw).failures, [
      'permissions.tsv: case chown-fix exited 2 but wrote=1',
    ]);
  });

  it('lifetime: survived per phase and place', () => {
    const { values, failures } = SCENARIOS.lifetime.parse(fixture('lifetime', 'lifetime.tsv'));
    assert.deepEqual(failures, []);
    assert.equal(values.length, 9);
    assert.equal(value(values, 'survived', { phase: 'recreate', place: 'layer' }), 0);
    assert.equal(value(values, 'survived', { phase: 'recreate', place: 'volume' }), 1);
  });

  it('backup: seconds, bytes and files per method; a short archive listing fails', () => {
    const raw = fixture('backup', 'backup.tsv');
    const { values, failures } = SCENARIOS.backup.parse(raw);
    assert.deepEqual(failures, []);
    assert.deepEqual(
      values.filter((v) => v.metric === 'files').map((v) => [v.labels.method, v.value]),
      [
        ['host-bind', 220],
        ['host-volume', 220],
        ['helper-container', 220],
      ],
    );
    const short = raw.replace(/^(host-volume(?:\t[^\t]+){3})\t220/m, '$1\t219');
    assert.deepEqual(SCENARIOS.backup.parse(short).failures, [
      'host-volume: the archive lists 219 files, the dataset has 220',
    ]);
  });

  it('every scenario refuses an empty raw file', () => {
    for (const scenario of Object.values(SCENARIOS)) {
      assert.ok(scenario.parse('').failures.length > 0, `${scenario.name} fails on empty output`);
    }
  });
});
