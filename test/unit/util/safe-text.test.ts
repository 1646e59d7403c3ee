/**
 * lab/util/safe-text: guest text reaches terminals, spreadsheets, Markdown
 * and HTML; it must drive none of them (issue 12, finding 12; issue 35,
 * finding N2). Each escaping function alone; then every scenario's parser
 * fed hostile names (a fio job name, a permissions user, a kernel string, a
 * parser's complaint quoting raw output) through `layerlab compare` and
 * `layerlab parse`, report.md, report.html, samples.csv and the CI job
 * summary: none may hold a raw control character, no Markdown table row may
 * gain a column. And secrets of a lab stay out of git.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it, mock } from 'node:test';
import { NO_MOUNT, type ProfileName, type TrialMount } from '../../../lab/catalog.ts';
import { type TrialOutcome, parseTrialOutput } from '../../../lab/collect/trial-output.ts';
import { compareCommand } from '../../../lab/commands/compare-runs.ts';
import { deltasMarkdown } from '../../../lab/history/compare.ts';
import { keyChanges } from '../../../lab/history/comparison-key.ts';
import type { Trial } from '../../../lab/plan/plan.ts';
import type { JournalEntry } from '../../../lab/record/journal.ts';
import { loadRun } from '../../../lab/record/load.ts';
import type { Sample } from '../../../lab/record/samples.ts';
import { samplesCsv } from '../../../lab/report/csv.ts';
import { Progress } from '../../../lab/run/progress.ts';
import { SCENARIOS, SCENARIO_NAMES, type ScenarioName } from '../../../lab/scenarios/index.ts';
import { PERMISSION_CASES } from '../../../lab/scenarios/permissions/cases.ts';
import { say } from '../../../lab/util/log.ts';
import { HostLog } from '../../../lab/util/log.ts';
import {
  htmlText,
  jsonText,
  markdownCode,
  markdownLineStart,
  markdownText,
  visible,
} from '../../../lab/util/safe-text.ts';
import { needs } from '../installed.ts';
import { renderRun, runInMemory, writeRun } from '../run-fixture.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const work = mkdtempSync(join(tmpdir(), 'layerlab-terminal-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** What a hostile guest prints: a title change (OSC), a screen clear and colour (CSI), a C1 CSI, a bell, a CR overwrite. */
const HOSTILE = 'ok\x1b]0;pwned\x07 \x1b[2J\x1b[31mred\x1b[0m \x9b31m c1 \x07bell\rover\x1bc';
/** Any escape, C0 control but tab and newline, DEL or C1 left in the text. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for them
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

/** Everything written to stderr while `fn` runs. */
function stderrOf(fn: () => void): string {
  let out = '';
  const write = mock.method(process.stderr, 'write', (chunk: string | Uint8Array) => {
    out += chunk.toString();
    return true;
  });
  try {
    fn();
  } finally {
    write.mock.restore();
  }
  return out;
}

describe('finding 12: guest text is stripped of control sequences before a terminal', () => {
  it('the host log keeps the words, not the escapes', async () => {
    const path = join(work, 'host.log');
    const log = new HostLog(path);
    log.output('  !', `${HOSTILE}\n`);
    log.line(`$ echo ${HOSTILE}`);
    await log.close();
    const text = readFileSync(path, 'utf8');
    assert.doesNotMatch(text, CONTROL, `no control characters: ${JSON.stringify(text)}`);
    assert.match(text, /ok red {2}c1 bellover/, 'the printable text survives');
    assert.doesNotMatch(text, /pwned/, 'an OSC payload (window title) is dropped with its sequence');
  });

  it('progress lines and messages quote a guest without its escapes', () => {
    const progress = new Progress(new Map([['t1', 10]]), 1);
    const out = stderrOf(() => {
      progress.finish('xfs', 't1', false, `guest script exited with 1: ${HOSTILE}`);
      say(`command failed: ${HOSTILE}`);
    });
    assert.doesNotMatch(out, CONTROL, `no control characters: ${JSON.stringify(out)}`);
    assert.match(out, /FAILED guest script exited with 1: ok/, 'the message is still there');
  });

  it("a failed trial's reason quotes guest.stderr without escapes", () => {
    const dir = join(work, 'trial');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'meta.json'), JSON.stringify({ start: '1', end: '2', exit_status: '1' }));
    writeFileSync(join(dir, 'guest.stderr'), `${HOSTILE}\n`);
    const trial: Trial = { id: 't', host: 'xfs', profile: 'overlay2-xfs', scenario: 'fio', mount: 'layer', rep: 1 };
    const reason = parseTrialOutput(dir, trial, 'r').failures.join('; ');
    assert.match(reason, /guest script exited with 1: ok/, reason);
    assert.doesNotMatch(reason, CONTROL, `no control characters: ${JSON.stringify(reason)}`);
  });

  it("an SSH command's error quotes the guest's stderr without escapes", async () => {
    const transport: Record<string, unknown> = await import('../../../lab/ssh/transport.ts');
    const stderrTail = transport.stderrTail;
    assert.equal(typeof stderrTail, 'function', 'lab/ssh/transport exports stderrTail (used in its error messages)');
    if (typeof stderrTail !== 'function') return;
    const tail = String(stderrTail(`line 1\n${HOSTILE}\n`));
    assert.doesNotMatch(tail, CONTROL, JSON.stringify(tail));
  });
});

describe('finding 12: samples.csv is not a formula', () => {
  const base: Sample = {
    run: 'r',
    host: 'h',
    profile: 'p',
    scenario: 'fio',
    mount: 'layer',
    rep: 1,
    trial: 't',
    metric: 'bw',
    value: -1.5,
    unit: 'KiB/s',
    timestamp: 'x',
  };
  const row = (labels: Record<string, string | number>) => samplesCsv([{ ...base, ...labels }]).split('\n')[1] ?? '';

  for (const start of ['=', '+', '-', '@']) {
    it(`a text cell starting with ${JSON.stringify(start)} gets a leading quote inside a quoted field`, () => {
      const payload = `${start}HYPERLINK("http://x","y")`;
      const line = samplesCsv([{ ...base, job: payload }]);
      assert.ok(
        line.includes(`"'${payload.replaceAll('"', '""')}"`),
        `neutralised: ${JSON.stringify(line.split('\n')[1])}`,
      );
    });
  }

  for (const [start, shown] of [
    ['\t', '\\t'],
    ['\r', '\\r'],
  ]) {
    it(`a text cell starting with ${JSON.stringify(start)} shows it as ${shown}: no control character, no formula`, () => {
      const line = row({ job: `${start}=HYPERLINK("http://x","y")` });
      assert.ok(line.endsWith(`,"${shown}=HYPERLINK(""http://x"",""y"")"`), `shown, not run: ${JSON.stringify(line)}`);
      assert.doesNotMatch(line, CONTROL, JSON.stringify(line));
    });
  }

  it('numbers stay numbers, negative ones included', () => {
    assert.match(row({ job: 'randread', offset: -3 }), /^r,h,p,fio,layer,1,t,bw,-1\.5,KiB\/s,x,randread,-3$/);
    assert.match(row({ job: '-2.5e3' }), /,-2\.5e3$/, 'a text label that is a plain number is left alone');
  });
});

describe('finding 12: .gitignore keeps stack settings and keys out of git', { skip: needs('git') }, () => {
  const ignored = (path: string) =>
    spawnSync('git', ['-C', ROOT, 'check-ignore', '-q', '--no-index', path]).status === 0;

  it('covers Pulumi.<stack>.yaml, not Pulumi.yaml', () => {
    assert.ok(ignored('Pulumi.dev.yaml'), 'Pulumi.dev.yaml is ignored');
    assert.ok(ignored('infra/Pulumi.prod.yaml'), 'a stack file in a folder too');
    assert.ok(!ignored('Pulumi.yaml'), 'the project file stays tracked');
  });

  it("covers the static inventory example's key folder", () => {
    assert.ok(ignored('keys/lab_ed25519'), 'keys/ (README example) is ignored');
    assert.ok(ignored('inventories/keys/lab_ed25519'), 'a keys/ folder beside an inventory too');
  });
});

describe('issue 35 N2: one escaping function per output context', () => {
  it('visible: every control character as its escape, the words kept', () => {
    assert.equal(visible('a\x1b[31mb\x07\n\t\r\x7f\x9b\u202ec'), 'a\\x1b[31mb\\x07\\n\\t\\r\\x7f\\x9b\\u202ec');
    assert.equal(visible('plain 6.1.0-amd64 ü'), 'plain 6.1.0-amd64 ü', 'printable text is left alone');
  });

  it('markdownText: markup characters escaped, a word-inner underscore kept', () => {
    assert.equal(
      markdownText('a|b `c` *d* _e_ <f> [g](h) ~i~ &amp; \\ clat_p99'),
      'a\\|b \\`c\\` \\*d\\* \\_e\\_ \\<f\\> \\[g\\](h) \\~i\\~ \\&amp; \\\\ clat_p99',
    );
    assert.equal(markdownText('\x1b[1m'), '\\\\x1b\\[1m', 'a control character shows as its escape, backslash kept');
  });

  it('markdownCode: a fence longer than any backtick run; a pipe escaped in a table cell', () => {
    assert.equal(markdownCode('a`b'), '``a`b``');
    assert.equal(markdownCode('`x'), '`` `x ``', 'padded when the text starts with a backtick');
    assert.equal(markdownCode('a|b', true), '`a\\|b`');
    assert.equal(markdownCode('a|b'), '`a|b`');
  });

  it('markdownLineStart: a line cannot become a heading, quote, list or rule', () => {
    for (const [line, escaped] of [
      ['# h', '\\# h'],
      ['> q', '\\> q'],
      ['- l', '\\- l'],
      ['+ l', '\\+ l'],
      ['===', '\\==='],
      ['1. o', '1\\. o'],
      ['2) o', '2\\) o'],
      ['a # b', 'a # b'],
    ] as const) {
      assert.equal(markdownLineStart(line), escaped, line);
    }
  });

  it('htmlText: entities for markup, escapes for control characters', () => {
    assert.equal(htmlText('<a href="x">&\x1b</a>'), '&lt;a href=&quot;x&quot;&gt;&amp;\\x1b&lt;/a&gt;');
  });

  it('jsonText: the same JSON value, with DEL, C1 and bidi marks escaped', () => {
    const value = { name: 'a\x1b\x9b\x7f\u202eb' };
    const text = jsonText(value);
    assert.doesNotMatch(text, CONTROL, text);
    assert.doesNotMatch(text, /\u202e/, text);
    assert.deepEqual(JSON.parse(text), value, 'parses back to the value');
  });
});

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'layerlab.js');
const namesWork = mkdtempSync(join(tmpdir(), 'layerlab-guest-names-'));
after(() => rmSync(namesWork, { recursive: true, force: true }));

/** Escapes a terminal acts on: colour (CSI), a window title (OSC), a C1 CSI, DEL, a right-to-left override. */
const ESCAPES = '\x1b[31mred\x1b[0m \x1b]0;title\x07 \x9b2J \x7f \u202eevil';
/** Markdown a reader's page would act on: a cell break, code, emphasis, HTML, a link, a heading. */
const MARKDOWN = 'a|b `tick` *star* _under_ <img src=x onerror=alert(1)> [link](http://example.invalid) # head';
/** A hostile name for a cell of a tab-separated raw file (one line, no tab). */
const HOSTILE_CELL = `${ESCAPES} ${MARKDOWN}`;
/** A hostile name where the raw format allows any string (JSON): a line break too. */
const HOSTILE_NAME = `${HOSTILE_CELL}\nsecond line\r`;

/** A raw control character: C0 but tab and newline, DEL, C1, or a bidi override or isolate. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for them
const CONTROL_OR_BIDI = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

function assertNoControl(text: string, where: string): void {
  const at = text.search(CONTROL_OR_BIDI);
  assert.equal(
    at,
    -1,
    `${where}: a raw control character at ${at}: ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 40))}`,
  );
}

/** The cells of a Markdown table row as GFM splits it: at each '|' that no backslash escapes. */
function pipes(line: string): number {
  let n = 0;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '\\') i++;
    else if (line[i] === '|') n++;
  }
  return n;
}

/** Every table of a Markdown text keeps its header's column count on every row. */
function assertTablesKeepColumns(md: string, where: string): number {
  let tables = 0;
  for (const block of md.split(/\n{2,}/)) {
    // A heading ends a table (GFM): the job summary appends report.md right after compare's table.
    const end = block.search(/^#/m);
    const lines = (end < 0 ? block : block.slice(0, end)).split('\n').filter((l) => l !== '');
    if (!lines[0]?.startsWith('|')) continue;
    tables++;
    const width = pipes(lines[0]);
    for (const line of lines) {
      assert.ok(line.startsWith('|'), `${where}: a table row that is not one: ${JSON.stringify(line)}`);
      assert.equal(pipes(line), width, `${where}: a row with another column count: ${JSON.stringify(line)}`);
    }
  }
  return tables;
}

/** Guest markup that must never reach a page as markup. */
function assertNoMarkup(md: string, where: string): void {
  assert.doesNotMatch(md, /(?<!\\)<img/, `${where}: raw HTML from a guest`);
  assert.doesNotMatch(md, /(?<!\\)\[link(?<!\\)\]\(/, `${where}: a link from a guest`);
  assert.doesNotMatch(md, /(?<!\\)`tick(?<!\\)`/, `${where}: a code span from a guest`);
  assert.doesNotMatch(md, /(?<!\\)\*star(?<!\\)\*/, `${where}: emphasis from a guest`);
}

/**
 * Each scenario's raw output with hostile names wherever its format lets a
 * guest write one: `measured` parses into samples whose labels hold them,
 * `failing` into failures that quote them. A new scenario must add its own.
 */
const HOSTILE_RAW: Record<ScenarioName, { measured?: (factor: number) => string; failing: string[] }> = {
  fio: {
    measured: (factor) =>
      JSON.stringify({
        jobs: [
          {
            jobname: HOSTILE_NAME,
            read: {
              io_bytes: 4096,
              bw: 1000 * factor,
              iops: 250 * factor,
              clat_ns: { mean: 1e6 / factor, percentile: { '50.000000': 9e5 / factor, '99.000000': 2e6 / factor } },
            },
            write: { io_bytes: 0 },
          },
        ],
      }),
    failing: [
      JSON.stringify({ jobs: [{ jobname: HOSTILE_NAME, error: 28 }] }),
      JSON.stringify({ jobs: [{ jobname: HOSTILE_NAME, read: { io_bytes: 0 } }] }),
      `fio: ${HOSTILE_NAME}\n{ not json }`,
    ],
  },
  permissions: {
    measured: () =>
      `case\tuser\texit_status\twrote\tinside\toutside\terror\n${PERMISSION_CASES[0]?.name}\t${HOSTILE_CELL}\t1\t0\t${HOSTILE_CELL}\t${HOSTILE_CELL}\t${HOSTILE_CELL}\n`,
    failing: [
      `case\tuser\texit_status\twrote\tinside\toutside\terror\n${HOSTILE_CELL}\tu\t0\t1\ti\to\te\n`,
      `case\tuser\texit_status\twrote\tinside\toutside\terror\n${PERMISSION_CASES[0]?.name}\tu\t${HOSTILE_CELL}\t1\ti\to\te\n`,
      `case\tuser\texit_status\twrote\tinside\toutside\tfile_owner\thost_list\thost_read\terror\nchown-fix\tu\t0\t1\ti\to\t${HOSTILE_CELL}\t-\t-\te\n`,
    ],
  },
  dbench: { failing: [`dbench version 4.00\n${HOSTILE_NAME}`] },
  backup: {
    failing: [
      `method\tposition\tseconds\tarchive_bytes\tfiles\texpected_files\nhost-bind\t1\t${HOSTILE_CELL}\t1\t1\t1\n`,
    ],
  },
  'db-import': { failing: [`seconds\trows\tdump_bytes\tsql_bytes\n1\t${HOSTILE_CELL}\t1\t1\n`] },
  lifecycle: { failing: [`phase\tcontainers\tseconds\n${ESCAPES}\t1\t1\n`] },
  lifetime: { failing: [`phase\tplace\tsurvived\tcontent\nwritten\tlayer\t${HOSTILE_CELL}\tx\n`] },
};

const HOSTS: { name: string; profile: ProfileName }[] = [
  { name: 'xfs', profile: 'overlay2-xfs' },
  { name: 'dm', profile: 'devicemapper-lvm' },
];
const MOUNTS: TrialMount[] = ['layer', 'volume'];

let trialCount = 0;
/** A trial folder as a host sends it back (meta.json, the raw file), through the collect boundary. */
function collectTrial(scenario: ScenarioName, raw: string, host: string, mount: TrialMount, rep: number): TrialOutcome {
  const id = `r${rep}-${host}-${scenario}-${mount}-${++trialCount}`;
  const dir = join(namesWork, 'trials', id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'meta.json'), JSON.stringify({ start: '100', end: '130', exit_status: '0' }));
  writeFileSync(join(dir, SCENARIOS[scenario].rawFile), raw);
  const profile = HOSTS.find((h) => h.name === host)?.profile ?? 'overlay2-xfs';
  return parseTrialOutput(dir, { id, host, profile, scenario, mount, rep }, 'r');
}

/** Everything a trial's outcome says, as text: its failures and its samples' labels. */
const outcomeText = (o: TrialOutcome) =>
  [...o.failures, ...o.samples.flatMap((s) => Object.entries(s).map(([k, v]) => `${k}=${v}`))].join('\n');

describe('finding N2: hostile names from every scenario parser', () => {
  const samples: Sample[] = [];
  const journal: JournalEntry[] = [];
  let md = '';
  let html = '';

  before(async () => {
    for (const name of SCENARIO_NAMES) {
      const { measured, failing } = HOSTILE_RAW[name];
      const mounts: TrialMount[] = SCENARIOS[name].mounts.length ? MOUNTS : [NO_MOUNT];
      for (const host of HOSTS) {
        for (const mount of mounts) {
          for (let rep = 1; measured && rep <= 5; rep++) {
            samples.push(
              ...collectTrial(
                name,
                measured(host.name === 'xfs' ? 1 + rep / 10 : 0.5 + rep / 10),
                host.name,
                mount,
                rep,
              ).samples,
            );
          }
        }
      }
      for (const raw of failing) {
        const outcome = collectTrial(name, raw, 'xfs', mounts[0] ?? NO_MOUNT, 1);
        journal.push({
          trial: `failed-${name}-${journal.length}`,
          host: 'xfs',
          state: 'failed',
          reason: outcome.failures.join('; '),
        });
      }
    }
    // A journal or env written before the collect boundary escaped anything: the renderers escape on their own.
    journal.push({ trial: 'old-run', host: 'dm', state: 'failed', reason: HOSTILE_NAME });
    const run = runInMemory(samples, { hosts: HOSTS, mounts: MOUNTS, repetitions: 5 });
    run.journal = journal;
    const env = {
      kernel: HOSTILE_NAME,
      docker_version: HOSTILE_NAME,
      storage_driver: 'overlay2',
      cpus: '2',
      loadavg: HOSTILE_NAME,
    };
    run.env = new Map(HOSTS.map((h) => [h.name, env]));
    ({ md, html } = await renderRun(run));
  });

  it('every scenario has hostile raw output, and its parser quotes the names', () => {
    assert.deepEqual(Object.keys(HOSTILE_RAW).sort(), [...SCENARIO_NAMES].sort(), 'one entry per registered scenario');
    for (const name of SCENARIO_NAMES) {
      const { measured, failing } = HOSTILE_RAW[name];
      for (const raw of [...(measured ? [measured(1)] : []), ...failing]) {
        const outcome = collectTrial(name, raw, 'xfs', SCENARIOS[name].mounts.length ? 'layer' : NO_MOUNT, 1);
        const text = outcomeText(outcome);
        assert.match(text, /title/, `${name}: the hostile name reaches the outcome: ${JSON.stringify(text)}`);
        assertNoControl(text, `${name}: samples and failures as collected`);
      }
    }
  });

  it('the collect boundary shows control characters as escapes, the words kept', () => {
    const job = samples.find((s) => s.scenario === 'fio')?.job;
    assert.equal(
      job,
      '\\x1b[31mred\\x1b[0m \\x1b]0;title\\x07 \\x9b2J \\x7f \\u202eevil a|b `tick` *star* _under_ <img src=x onerror=alert(1)> [link](http://example.invalid) # head\\nsecond line\\r',
      'the fio job name as samples.ndjson keeps it',
    );
  });

  it('report.md: no raw control character, every table row keeps its columns, no markup from a guest', () => {
    assertNoControl(md, 'report.md');
    assert.ok(assertTablesKeepColumns(md, 'report.md') >= 3, 'report.md has its tables');
    assertNoMarkup(md, 'report.md');
    assert.match(md, /\\\\x1b\\\[31mred/, 'the job name is shown, its escape visible');
    assert.match(md, /a\\\|b/, 'a pipe in a name is escaped');
  });

  it('report.html: no raw control character, no element from a guest', () => {
    assertNoControl(html, 'report.html');
    assert.doesNotMatch(html, /<img/, 'no <img> from a guest');
    assert.match(html, /&lt;img src=x/, 'the name is shown as text');
    assert.match(html, /\\x1b\[31mred/, 'its escapes are visible');
  });

  it('samples.csv: no raw control character', () => {
    assertNoControl(samplesCsv(samples), 'samples.csv');
  });
});

/** A run folder of fio samples whose job name is hostile, as a run recorded before the collect boundary escaped names (or an older layerlab) keeps it. */
function runDir(name: string): string {
  const dir = join(namesWork, name);
  writeRun(dir, { runId: name });
  const path = join(dir, 'samples.ndjson');
  writeFileSync(
    path,
    readFileSync(path, 'utf8').replaceAll('"job":"randread"', `"job":${JSON.stringify(HOSTILE_NAME)}`),
  );
  return dir;
}

describe('finding N2: `layerlab compare` and the job summary', () => {
  let older = '';
  let newer = '';
  before(() => {
    older = runDir('old');
    newer = runDir('new');
  });

  it('compare of two run folders: Markdown with no raw control character, rows keep their columns', async () => {
    const { output } = await compareCommand([older, newer], {});
    assertNoControl(output, 'compare');
    assert.ok(assertTablesKeepColumns(output, 'compare') === 1, 'one table');
    assertNoMarkup(output, 'compare');
    assert.match(output, /\\\\x1b\\\[31mred/, 'the job name is shown, its escape visible');
  });

  it('compare --json: no raw control character (C1 included), the same names', async () => {
    const { output } = await compareCommand([older, newer], { json: true });
    assertNoControl(output, 'compare --json');
    const cells = (JSON.parse(output) as { cells: { series: string }[] }).cells;
    assert.ok(
      cells.length > 0 && cells.every((c) => c.series.includes(HOSTILE_NAME)),
      'the JSON value is the name itself',
    );
  });

  it("compare's environment changes: a host's kernel string is text, one list item", () => {
    const changes = keyChanges({ xfs: { kernel: '6.1.0' } }, { xfs: { kernel: HOSTILE_NAME } });
    const out = deltasMarkdown({ baseline: 'a', now: 'b' }, [], 0, changes);
    assertNoControl(out, 'compare environment note');
    assertNoMarkup(out, 'compare environment note');
    assert.equal(out.split('\n').filter((l) => l.startsWith('- ')).length, 1, `one item: ${out}`);
  });

  it('the job summary (compare.md, then report.md, appended as they are by scripts/nightly.sh)', async () => {
    const summary = `${(await compareCommand([older, newer], {})).output}${(await renderRun(loadRun(newer))).md}`;
    assertNoControl(summary, 'job summary');
    assertTablesKeepColumns(summary, 'job summary');
    assertNoMarkup(summary, 'job summary');
  });
});

describe('finding N2: the CLI on a terminal', () => {
  /** stdout and stderr of bin/layerlab.js, as a terminal would get them. */
  const cli = (...args: string[]) => {
    const r = spawnSync(process.execPath, [BIN, ...args], {
      encoding: 'utf8',
      env: { ...process.env, LAYERLAB_RESULTS: join(namesWork, 'results'), LAYERLAB_HOME: join(namesWork, 'home') },
    });
    return { out: `${r.stdout}${r.stderr}`, status: r.status };
  };

  it('`layerlab parse` prints samples and failures without raw control characters', () => {
    const raws = [HOSTILE_RAW.fio.measured?.(1) ?? '', ...HOSTILE_RAW.fio.failing];
    for (const [i, raw] of raws.entries()) {
      const file = join(namesWork, `fio-${i}.json`);
      writeFileSync(file, raw);
      const { out, status } = cli('parse', 'fio', file);
      assert.equal(status, i === 0 ? 0 : 1, out);
      assertNoControl(out, `layerlab parse (${i})`);
      assert.match(out, /title/, 'the name is shown');
    }
  });

  it('`layerlab compare <old> <new>` prints the job name with its escapes visible', () => {
    const { out } = cli('compare', runDir('cli-old'), runDir('cli-new'));
    assertNoControl(out, 'layerlab compare');
    assert.match(out, /\\\\x1b\\\[31mred/, `the job name is shown: ${out}`);
  });
});
