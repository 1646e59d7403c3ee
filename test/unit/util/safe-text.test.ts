/**
 * Issue 12, finding 12: guest text reaches terminals and spreadsheets; it must
 * not drive either. And secrets of a lab stay out of git.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it, mock } from 'node:test';
import { parseTrialOutput } from '../../../lab/collect/trial-output.ts';
import type { Trial } from '../../../lab/plan/plan.ts';
import type { Sample } from '../../../lab/record/samples.ts';
import { samplesCsv } from '../../../lab/report/csv.ts';
import { Progress } from '../../../lab/run/progress.ts';
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
