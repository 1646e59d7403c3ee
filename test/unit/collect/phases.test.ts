/** A guest's phases file is untrusted: taken when it is exactly what ll_phase writes, dropped whole otherwise. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  MAX_PHASE_MARKS,
  type ParsedPhases,
  parsePhases,
  phasesWithinWall,
  readPhases,
} from '../../../lab/collect/phases.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-phases-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** The problem of a file that must be dropped (fails the test when it is taken). */
function problemOf(parsed: ParsedPhases | undefined): string {
  assert.ok(parsed && 'problem' in parsed, `dropped, not taken: ${JSON.stringify(parsed)}`);
  return parsed.problem;
}

const A_TRIAL = [
  'setup 1700000000.000000',
  'script 1700000000.010000',
  'mount 1700000000.110000',
  'start 1700000000.410000',
  'work 1700000001.410000',
  'output 1700000005.410000',
  'cleanup 1700000005.510000',
  'finish 1700000006.010000',
  'end 1700000006.020000',
  '',
].join('\n');

describe('parsePhases', () => {
  it("a trial as run-trial.sh and fio's script mark it: seconds per phase, to the microsecond", () => {
    const parsed = parsePhases(A_TRIAL);
    assert.ok('phases' in parsed, JSON.stringify(parsed));
    assert.deepEqual(parsed.phases, {
      setup: 0.01,
      script: 0.1,
      mount: 0.3,
      start: 1,
      work: 4,
      output: 0.1,
      cleanup: 0.5,
      finish: 0.01,
    });
    assert.equal(parsed.spanSeconds, 6.02);
  });

  it('a phase entered again adds up (backup: prepare, work, output per method); equal times are fine', () => {
    const parsed = parsePhases('work 10.5\noutput 11\nwork 11\noutput 12.25\ncleanup 12.25\nend 13\n');
    assert.ok('phases' in parsed, JSON.stringify(parsed));
    assert.deepEqual(parsed.phases, { work: 1.75, output: 0, cleanup: 0.75 });
  });

  it('fractions beyond microseconds are cut, not rounded into a time that goes back', () => {
    const parsed = parsePhases('work 1.1234569\nend 1.123457\n');
    assert.ok('phases' in parsed, JSON.stringify(parsed));
    assert.equal(parsed.phases.work, 0.000001);
  });

  const hostile: [string, string, RegExp][] = [
    ['an unknown phase', 'setup 1\nbreakfast 2\nend 3\n', /line 2: unknown phase "breakfast"/],
    ['a phase name that is markup', 'setup 1\n<b>x 2\nend 3\n', /line 2: .* is not "<phase> <seconds>"/],
    ['time going back', 'setup 5\nwork 4\nend 6\n', /line 2: work starts before setup/],
    ['no end', 'setup 1\nwork 2\n', /the last mark is not end/],
    ['end before the last mark', 'setup 1\nend 2\nwork 3\n', /line 2: end before the last mark/],
    ['end alone', 'end 1\n', /the last mark is not end/],
    ['an empty file', '', /line 1: "" is not/],
    ['a negative time', 'setup -1\nend 2\n', /line 1/],
    ['an exponent', 'setup 1e9\nend 2e9\n', /line 1/],
    ['Infinity', 'setup Infinity\nend 2\n', /line 1/],
    ['a comma left in', 'setup 1,5\nend 2\n', /line 1/],
    ['CRLF line ends', 'setup 1\r\nend 2\r\n', /line 1: "setup 1\\r" is not/],
    ['a blank line in between', 'setup 1\n\nend 2\n', /line 2/],
    ['extra fields', 'setup 1 2\nend 3\n', /line 1/],
    ['leading spaces', ' setup 1\nend 3\n', /line 1/],
    ['a huge number', `setup ${'9'.repeat(40)}\nend 2\n`, /line 1/],
    ['binary', '\x00\x01\xff\x1b[2J\nend 2\n', /line 1: "\\u0000\\u0001.*\\u001b\[2J" is not/],
    ['too many marks', `${'work 1\n'.repeat(MAX_PHASE_MARKS)}end 2\n`, /more than 500/],
  ];
  for (const [what, text, problem] of hostile) {
    it(`drops the whole file: ${what}`, () => {
      assert.match(problemOf(parsePhases(text)), problem);
    });
  }

  it('quotes a bad line short and with its control characters escaped (the reason reaches a terminal)', () => {
    const reason = problemOf(parsePhases(`\x1b]0;owned\x07${'x'.repeat(500)}\nend 1\n`));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: it exists to find them
    assert.ok(!/[\x00-\x1f\x7f-\x9f]/.test(reason), `no raw control character: ${reason}`);
    assert.ok(reason.length < 150, `a short quote: ${reason.length} characters`);
  });
});

describe('readPhases', () => {
  it('no phases file (a guest before phases): none, and no problem', () => {
    assert.equal(readPhases(mkdtempSync(join(work, 'none-'))), undefined);
  });

  it('a file too big is not read', () => {
    const dir = mkdtempSync(join(work, 'big-'));
    writeFileSync(join(dir, 'phases'), 'x'.repeat(100_000));
    assert.match(problemOf(readPhases(dir)), /100000 bytes, more than 65536/);
  });

  it('reads the file of a trial folder', () => {
    const dir = mkdtempSync(join(work, 'ok-'));
    writeFileSync(join(dir, 'phases'), A_TRIAL);
    const parsed = readPhases(dir);
    assert.ok(parsed && 'phases' in parsed, JSON.stringify(parsed));
  });
});

describe('phasesWithinWall', () => {
  const parsed = parsePhases(A_TRIAL);

  it('kept when the marks lie within the controller’s wall of the trial', () => {
    assert.deepEqual(Object.keys(phasesWithinWall(parsed, 7)), ['phases']);
  });

  it('kept within a little slack for two clocks (5% and half a second)', () => {
    assert.ok(phasesWithinWall(parsed, 5.8).phases, 'a span of 6.02 s in a wall of 5.8 s');
  });

  it('dropped, with the reason, when they span more than the trial took', () => {
    const timing = phasesWithinWall(parsed, 3);
    assert.equal(timing.phases, undefined);
    assert.match(timing.phasesDropped ?? '', /span 6\.020 s, longer than the trial's 3\.000 s/);
  });

  it("a garbled file's problem is the reason; no file, nothing", () => {
    assert.match(phasesWithinWall(parsePhases('x'), 10).phasesDropped ?? '', /^phases: line 1/);
    assert.deepEqual(phasesWithinWall(undefined, 10), {});
  });
});
