/**
 * `layerlab validate` through the real CLI entry: on cloud labs the cost at
 * list price, and a warning when the instance type cannot sustain what the
 * volume is provisioned for, or is burstable (lab/targets/aws/hardware.ts);
 * on any lab a warning when its repetitions cannot reach a claim; and
 * hostile or empty YAML is bad input (exit 2, naming the file), never a
 * crash (issue 12, finding 13).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { runsNeeded, smallestP } from '../../../lab/analyze/rank-test.ts';
import { ALPHA, pValue } from '../../../lab/analyze/verdict.ts';
import {
  budgetWarning,
  hostDifferenceWarnings,
  planSeconds,
  repetitionsWarning,
} from '../../../lab/commands/validate.ts';
import { parseLabDefinition } from '../../../lab/definition/load.ts';
import { makePlan } from '../../../lab/plan/plan.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const BIN = join(ROOT, 'bin', 'layerlab.js');
const NIGHTLY = join(ROOT, 'labs', 'aws-nightly.yaml');
const work = mkdtempSync(join(tmpdir(), 'layerlab-validate-'));
after(() => rmSync(work, { recursive: true, force: true }));

function validate(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, 'validate', ...args], {
    cwd: work,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, LAYERLAB_HOME: join(work, 'state'), LAYERLAB_RESULTS: join(work, 'results') },
  });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

/** The nightly lab with its aws settings replaced line by line. */
function nightlyWith(name: string, replace: Record<string, string>): string {
  let text = readFileSync(NIGHTLY, 'utf8');
  for (const [key, value] of Object.entries(replace)) {
    text = text.replace(new RegExp(`^(\\s+${key}:) .*$`, 'm'), `$1 ${value}`);
  }
  const file = join(work, `${name}.yaml`);
  writeFileSync(file, text);
  return file;
}

describe('layerlab validate, target aws', () => {
  it('labs/aws-nightly.yaml: the cost per hour and per night at list price, and no hardware warning', () => {
    const r = validate(NIGHTLY);
    assert.equal(r.status, 0, r.err);
    assert.match(
      r.out,
      /cost: ~\$\d+\.\d\d\/h at on-demand list price in eu-central-1 as of 2026 .*~\$\d+\.\d\d per night for the lab's budget of 2\.5 h/,
    );
    assert.doesNotMatch(r.out, /warning/);
  });

  it('a burstable instance type (t3.large) gets the warning', () => {
    const r = validate(nightlyWith('burst', { instanceType: 't3.large' }));
    assert.equal(r.status, 0, r.err);
    assert.match(r.out, /warning: instance type t3\.large is burstable/);
    // t3.large sustains 86.88 MB/s, below 125 MiB/s too.
    assert.match(
      r.out,
      /warning: the gp3 volume's 125 MiB\/s \(131\.1 MB\/s\) exceeds t3\.large's sustained EBS throughput of 86\.88 MB\/s/,
    );
  });

  it('a volume above the instance type’s EBS baseline gets the warning (throughput and IOPS)', () => {
    const r = validate(nightlyWith('fast', { throughput: '500', iops: '8000' }));
    assert.equal(r.status, 0, r.err);
    assert.match(
      r.out,
      /500 MiB\/s \(524\.3 MB\/s\) exceeds m6i\.xlarge's sustained EBS throughput of 156\.25 MB\/s.*e\.g\. m6i\.4xlarge: 625 MB\/s/,
    );
    assert.match(r.out, /8000 IOPS exceed m6i\.xlarge's sustained EBS IOPS of 6000/);
    assert.match(r.out, /provisioned IOPS\/throughput above what the volume type includes not priced/);
  });

  it('m6i.large, the old default, measures itself: warned', () => {
    const r = validate(nightlyWith('large', { instanceType: 'm6i.large' }));
    assert.match(r.out, /exceeds m6i\.large's sustained EBS throughput of 81\.25 MB\/s/);
  });

  it('a type or region without recorded figures: says it cannot check or price it', () => {
    const r = validate(nightlyWith('unknown', { instanceType: 'z1d.large', region: 'us-east-1' }));
    assert.equal(r.status, 0, r.err);
    assert.match(r.out, /warning: cannot check instance type z1d\.large: no sustained EBS figures recorded/);
    assert.match(r.out, /cost: price unknown \(no list prices recorded for region us-east-1/);
  });

  it('a known type in a region without recorded prices: "price unknown", not eu-central-1’s figures', () => {
    const r = validate(nightlyWith('virginia', { region: 'us-east-1' }));
    assert.equal(r.status, 0, r.err);
    assert.match(
      r.out,
      /cost: price unknown \(no list prices recorded for region us-east-1 \(only eu-central-1, as of 2026\)/,
    );
    assert.doesNotMatch(r.out, /\$\d/, 'no dollar figure from another region');
    assert.doesNotMatch(r.out, /warning/, 'the EBS limits do not depend on the region');
  });

  it('--target aws on a local lab prints the cloud lines; a local lab alone does not', () => {
    const quick = join(ROOT, 'labs', 'quick.yaml');
    assert.doesNotMatch(validate(quick).out, /cost:/);
    assert.match(validate(quick, '--target', 'aws').out, /cost: ~\$/);
  });
});

/** labs/quick.yaml with its repetitions replaced, written to the work folder. */
function quickWith(name: string, repetitions: string): string {
  const text = readFileSync(join(ROOT, 'labs', 'quick.yaml'), 'utf8');
  assert.match(text, /^repetitions: 5$/m, 'labs/quick.yaml has the line to replace');
  const file = join(work, `${name}.yaml`);
  writeFileSync(file, text.replace(/^repetitions: 5$/m, `repetitions: ${repetitions}`));
  return file;
}

describe('layerlab validate, repetitions that cannot reach a claim', () => {
  it('repetitions: 3 warns with the smallest p at 3 vs 3 (0.10) and the 4 that can, and exits 0', () => {
    const r = validate(quickWith('three', '3'));
    assert.equal(r.status, 0, r.err);
    assert.match(
      r.out,
      /warning: repetitions 3 cannot show any difference: at 3 runs per side the rank test's smallest two-sided p is 0\.10, above the level 0\.05, whatever is measured; 4 repetitions can reach 0\.029/,
    );
  });

  it('repetitions: 4 and labs/quick.yaml (5) do not warn', () => {
    assert.doesNotMatch(validate(quickWith('four', '4')).out, /warning/);
    assert.doesNotMatch(validate(join(ROOT, 'labs', 'quick.yaml')).out, /warning/);
  });

  it('a stop rule counts its max: max 3 warns, min 2 with max 8 does not', () => {
    const low = validate(quickWith('stop-low', '{ min: 2, max: 3 }'));
    assert.equal(low.status, 0, low.err);
    assert.match(low.out, /warning: repetitions\.max 3 cannot show any difference/);
    assert.doesNotMatch(validate(quickWith('stop-high', '{ min: 2, max: 8 }')).out, /warning/);
  });

  it("the figures are the analysis's own: smallestP and runsNeeded at ALPHA, for every n that cannot claim", () => {
    const text = readFileSync(join(ROOT, 'labs', 'quick.yaml'), 'utf8');
    const needed = runsNeeded(ALPHA);
    assert.equal(needed, 4, 'the exact test needs 4 runs per side at 5%');
    for (let n = 1; n <= needed; n++) {
      const lab = parseLabDefinition(text.replace(/^repetitions: 5$/m, `repetitions: ${n}`), join(work, 'x.yaml'));
      const warning = repetitionsWarning(lab);
      if (n === needed) {
        assert.equal(warning, undefined, `${n} repetitions can claim`);
        continue;
      }
      assert.ok(warning?.includes(`smallest two-sided p is ${pValue(smallestP(n, n))},`), `n=${n}: ${warning}`);
      assert.ok(
        warning?.includes(`${needed} repetitions can reach ${pValue(smallestP(needed, needed))}`),
        `n=${n}: ${warning}`,
      );
    }
  });
});

/** `layerlab validate` on a file of this text. */
function validateText(name: string, text: string) {
  const file = join(work, name);
  writeFileSync(file, text);
  return validate(file);
}

/** "Billion laughs": each level repeats the one before nine times. */
const ALIAS_BOMB = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
  .concat(
    'bcdefg'.split('').map((level, i) => {
      const prev = 'abcdefg'[i];
      return `${level}: &${level} [${Array(9).fill(`*${prev}`).join(',')}]`;
    }),
  )
  .join('\n');

describe('finding 13: YAML that is not a lab definition', () => {
  it('an alias bomb: exit 2, the message names the file and a line', () => {
    const r = validateText('bomb.yaml', `${ALIAS_BOMB}\n`);
    assert.equal(r.status, 2, `exit 2 (bad input), got ${r.status}: ${r.err}`);
    assert.match(r.err, /bomb\.yaml:\d+:\d+: malformed YAML: .*alias/i);
  });

  it('an empty file says so and points at an example', () => {
    const r = validateText('empty.yaml', '');
    assert.equal(r.status, 2, r.err);
    assert.match(r.err, /empty\.yaml: the file is empty; expected a lab definition \(see labs\/quick\.yaml\)/);
    assert.doesNotMatch(r.err, /null null/, 'no "expected object, got null null"');
  });

  it('a local VM disk aio mode QEMU does not have: exit 2, naming the key and the modes', () => {
    const quick = readFileSync(join(ROOT, 'labs', 'quick.yaml'), 'utf8');
    const text = quick.replace(/^ {2}kind: local$/m, '  kind: local\n  local: { diskAio: posix }');
    assert.notEqual(text, quick, 'labs/quick.yaml still has target.kind: local');
    const r = validateText('aio.yaml', text);
    assert.equal(r.status, 2, `exit 2 (bad input), got ${r.status}: ${r.err}`);
    assert.match(r.err, /aio\.yaml.*target\.local\.diskAio: expected one of native, threads, io_uring; got "posix"/);
  });

  it('a file of comments only is empty too', () => {
    const r = validateText('comments.yaml', '# nothing here yet\n');
    assert.equal(r.status, 2, r.err);
    assert.match(r.err, /comments\.yaml: the file is empty/);
  });
});

describe('layerlab validate, issue 37 item 5: a budget too small, hosts that differ in more than the profile', () => {
  const QUICK = readFileSync(join(ROOT, 'labs', 'quick.yaml'), 'utf8');
  const lab = (text: string) => parseLabDefinition(text, join(work, 'x.yaml'));
  const withReps = (reps: string) => QUICK.replace(/^repetitions: 5$/m, `repetitions: ${reps}`);

  it('a budget below the minimum repetitions’ timed work cannot fit them, and says by how much', () => {
    const text = withReps('{ min: 5, max: 8, budgetMinutes: 1 }');
    const def = lab(text);
    const warning = budgetWarning(def, makePlan(def));
    assert.match(
      warning ?? '',
      /^repetitions\.budgetMinutes 1 cannot fit the minimum repetitions \(5\): their timed work alone takes \d+ min, which no machine shortens; .*Raise budgetMinutes above \d+/,
    );
    const file = join(work, 'budget.yaml');
    writeFileSync(file, text);
    const r = validate(file);
    assert.equal(r.status, 0, r.err);
    assert.match(r.out, /warning: repetitions\.budgetMinutes 1 cannot fit/);
  });

  it('a budget that fits says nothing; one the TCG estimate exceeds may not fit', () => {
    const roomy = lab(withReps('{ min: 5, max: 8, budgetMinutes: 10000 }'));
    assert.equal(budgetWarning(roomy, makePlan(roomy)), undefined);
    const plan = makePlan(lab(withReps('{ min: 5, max: 8, budgetMinutes: 1 }')));
    const { expected, timed } = planSeconds(roomy, { ...plan, trials: plan.trials.filter((t) => t.rep <= 5) });
    const between = lab(withReps(`{ min: 5, max: 8, budgetMinutes: ${Math.ceil((timed + expected) / 2 / 60)} }`));
    assert.match(budgetWarning(between, makePlan(between)) ?? '', /may not fit the minimum repetitions \(5\)/);
  });

  it('hosts that differ in the profile and the VM size are warned; the profile alone is not', () => {
    assert.deepEqual(hostDifferenceWarnings(lab(QUICK)), []);
    const bigger = lab(QUICK.replace(/(profile: devicemapper-lvm\n\s+cpus:) 2/, '$1 4'));
    assert.deepEqual(hostDifferenceWarnings(bigger), [
      'hosts xfs and dm differ in 2 dimensions (profile overlay2-xfs vs devicemapper-lvm, cpus 2 vs 4), not only in the storage profile: a difference between them cannot be put on the storage alone; make them alike in everything but the profile',
    ]);
    const file = join(work, 'bigger.yaml');
    writeFileSync(file, QUICK.replace(/(profile: devicemapper-lvm\n\s+cpus:) 2/, '$1 4'));
    assert.match(validate(file).out, /warning: hosts xfs and dm differ in 2 dimensions/);
  });
});
