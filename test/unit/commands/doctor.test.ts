/**
 * `layerlab doctor --for tests` (issue 36 item 4): one list of packages per
 * purpose; `npm test` and .ci/run install through it and nothing else, and
 * what a unit test skips for is on the list that installs it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NEEDS, doctorCommand, missingSummary, runChecks } from '../../../lab/commands/doctor.ts';
import { UserError } from '../../../lab/errors.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const work = mkdtempSync(join(tmpdir(), 'layerlab-doctor-'));
const saved = { home: process.env.LAYERLAB_HOME, cache: process.env.LAYERLAB_CACHE };
before(() => {
  process.env.LAYERLAB_HOME = join(work, 'state');
  process.env.LAYERLAB_CACHE = join(work, 'cache');
});
after(() => {
  for (const [key, value] of [
    ['LAYERLAB_HOME', saved.home],
    ['LAYERLAB_CACHE', saved.cache],
  ] as const) {
    if (value === undefined) Reflect.deleteProperty(process.env, key);
    else process.env[key] = value;
  }
  rmSync(work, { recursive: true, force: true });
});

const packagesOf = (purpose: keyof typeof NEEDS) => NEEDS[purpose].map((n) => n.pkg);

describe('doctor: one list of packages per purpose', () => {
  it('the tests add the NFS server with its plugin, socat, chromium, shellcheck, the AWS CLI and git', () => {
    for (const pkg of ['nfs-ganesha', 'nfs-ganesha-vfs', 'socat', 'chromium', 'shellcheck', 'awscli', 'git'])
      assert.ok(packagesOf('tests').includes(pkg), `${pkg} is on the tests' list`);
  });

  it('for the tests, everything on both lists is required and can be installed', () => {
    const checks = runChecks('tests');
    for (const need of [...NEEDS.lab, ...NEEDS.tests]) {
      const check = checks.find((c) => c.what === need.what);
      assert.ok(check, `${need.what} is checked`);
      assert.equal(check.optional, undefined, `${need.what} is required`);
      assert.equal(check.aptPackage, need.pkg);
    }
    const lab = runChecks('lab');
    assert.equal(lab.find((c) => c.what === 'socat')?.optional, true, 'the lab alone only warns about socat');
    assert.equal(
      lab.some((c) => c.what === 'chromium'),
      false,
      'the lab does not check what only the tests need',
    );
  });

  it('names what is missing and the packages that bring it, or nothing when all is there', () => {
    const checks = [
      { what: 'socat', ok: false, detail: 'missing', aptPackage: 'socat' },
      { what: 'running as root', ok: false, detail: 'no' },
      { what: 'virtiofsd', ok: false, detail: 'missing', aptPackage: 'qemu-system-common', optional: true },
      { what: 'tar', ok: true, detail: '/usr/bin/tar', aptPackage: 'tar' },
    ];
    assert.equal(
      missingSummary(checks, 'tests'),
      'layerlab: not ready for the tests: missing socat, running as root; as root, `layerlab doctor --install --for tests` installs socat',
    );
    assert.match(
      missingSummary(checks, 'lab') ?? '',
      /not ready for the lab: .*`layerlab doctor --install` installs socat$/,
    );
    assert.equal(missingSummary([checks[3] as (typeof checks)[number]], 'tests'), undefined);
  });

  it('refuses a purpose it does not know (exit 2) before checking anything', async () => {
    await assert.rejects(doctorCommand({ for: 'everything' }), (err: Error) => {
      assert.ok(err instanceof UserError, 'a UserError (exit 2)');
      assert.match(err.message, /doctor --for everything: .* one of lab, tests/);
      return true;
    });
  });
});

describe('npm test and .ci/run set up through doctor', () => {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts;

  it('npm test runs the set-up first; the unit tests alone need nothing but Node', () => {
    assert.equal(scripts['test:setup'], 'node bin/layerlab.js doctor --install --for tests');
    assert.match(scripts.test ?? '', /^npm run test:setup && /, 'the set-up runs before any test');
    assert.doesNotMatch(scripts['test:unit'] ?? '', /setup|doctor|sudo/, 'test:unit installs and checks nothing');
  });

  it('.ci/run installs nothing itself: it runs the same set-up', () => {
    const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
    const code = ci
      .split('\n')
      .filter((l) => !l.trimStart().startsWith('#'))
      .join('\n');
    assert.doesNotMatch(code, /apt-get|apt |dpkg/, '.ci/run has no package list of its own');
    assert.match(code, /^node bin\/layerlab\.js doctor --install --for tests$/m);
  });

  it('every tool a unit test skips without is on a list that installs it', () => {
    const listed = new Set([...NEEDS.lab, ...NEEDS.tests].map((n) => n.what));
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
      );
    const unlisted = new Set<string>();
    for (const file of files(join(ROOT, 'test', 'unit'))) {
      for (const call of readFileSync(file, 'utf8').matchAll(/\bneeds\(([^)]*)\)/g))
        for (const name of (call[1] ?? '').matchAll(/'([^']+)'/g))
          if (!listed.has(name[1] ?? '')) unlisted.add(`${name[1]} (${file})`);
    }
    assert.deepEqual([...unlisted], [], 'add these to NEEDS in lab/commands/doctor.ts');
  });
});
