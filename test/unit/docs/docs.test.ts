/**
 * Issue 36, item 1: the documentation names only things that exist. README.md
 * and docs/*.md may not name a layerlab command or flag the CLI lacks, a
 * lab-file key the schema lacks (nor leave out one it has), a run id or a
 * commit hash (measured figures and their sources live in bench/RESULTS.md),
 * and README.md stays one screen-scroll (at most 250 lines). Every `test/…`
 * path they, CONTRIBUTING.md or infra/README.md name exists (tests move with
 * the modules they test).
 *
 * Flags are read only from `layerlab <command> …` command lines (inline code
 * and code blocks) and from table rows that start with one, so flags of npm,
 * pulumi, node, aws or qemu in the same pages are not checked.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import type { Command } from 'commander';
import { z } from 'zod';
import { buildProgram } from '../../../lab/cli.ts';
import { parseLabDefinition } from '../../../lab/definition/load.ts';
import { labSchema } from '../../../lab/definition/schema.ts';
import { SCENARIOS, SCENARIO_NAMES } from '../../../lab/scenarios/index.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const README = join(ROOT, 'README.md');
const DOCS = join(ROOT, 'docs');
const LAB_DEFINITION_DOC = join(DOCS, 'lab-definition.md');
const README_MAX_LINES = 250;

interface Page {
  name: string;
  text: string;
}

function pages(): Page[] {
  const docs = readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => ({ name: `docs/${f}`, text: readFileSync(join(DOCS, f), 'utf8') }));
  return [{ name: 'README.md', text: readFileSync(README, 'utf8') }, ...docs];
}

// ---------------------------------------------------------------- CLI flags

/** Each command's long flags, as commander holds them after buildProgram(). */
interface CliSpec {
  commands: Map<string, Set<string>>;
  /** Flags every command accepts (--help, and the program's own such as --version). */
  global: Set<string>;
}

function longFlags(command: Command): string[] {
  return command.options.map((o) => o.long).filter((l): l is string => !!l);
}

function cliSpec(program: Command = buildProgram()): CliSpec {
  // Subcommands under "command subcommand" (`history plot`), with their own flags.
  const commands = new Map(
    program.commands.flatMap((c) => [
      [c.name(), new Set(longFlags(c))] as const,
      ...c.commands.map((sub) => [`${c.name()} ${sub.name()}`, new Set(longFlags(sub))] as const),
    ]),
  );
  return { commands, global: new Set(['--help', ...longFlags(program)]) };
}

/** One `layerlab <command> …` found in a page: the command and the flags it names. */
interface CommandLine {
  command: string;
  /** The word after the command: its subcommand, when it has one of that name. */
  word?: string;
  flags: string[];
  text: string;
}

const FLAG = /(?<![\w-])--[a-z][a-z0-9-]*/g;
/** `layerlab <word>` (also `npx layerlab`, `bin/layerlab.js`), not `layerlab:lab` or `layerlab-vm`. */
const INVOCATION =
  /(?:^|[\s(])(?:npx\s+)?(?:bin\/)?layerlab(?:\.js)?[ \t\n]+([a-z][a-z-]*)(?:[ \t]+([a-z][a-z-]*)(?![\w./-]))?/;

function flagsOf(text: string): string[] {
  return [...text.matchAll(FLAG)].map((m) => m[0]);
}

/** The part of a shell line that belongs to the layerlab invocation: up to a comment or the next command. */
function invocationAt(line: string): CommandLine | undefined {
  const m = INVOCATION.exec(line);
  if (!m?.[1]) return undefined;
  const rest =
    line
      .slice((m.index ?? 0) + m[0].length)
      // A command substitution is another program's: `--ssh-cidr "$(curl -fsS …)/32"`.
      .replace(/\$\([^)]*\)/g, '')
      .split(/\s#|&&|\|\||[;|]/)[0] ?? '';
  return { command: m[1], word: m[2], flags: flagsOf(rest), text: line.trim() };
}

/** Splits markdown into fenced code blocks and the prose between them. */
function splitFences(markdown: string): { code: string[]; prose: string } {
  const code: string[] = [];
  const prose: string[] = [];
  let block: string[] | undefined;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      if (block) {
        code.push(block.join('\n'));
        block = undefined;
      } else block = [];
    } else if (block) block.push(line);
    else prose.push(line);
  }
  return { code, prose: prose.join('\n') };
}

function layerlabCommandLines(markdown: string): CommandLine[] {
  const { code, prose } = splitFences(markdown);
  const found: CommandLine[] = [];
  for (const block of code) {
    // A trailing backslash continues the command on the next line.
    for (const line of block.replace(/\\\n/g, ' ').split('\n')) {
      const hit = invocationAt(line);
      if (hit) found.push(hit);
    }
  }
  for (const line of prose.split('\n')) {
    // A table row that starts with a command: every flag of the row is that command's (the CLI table).
    const row = /^\|\s*`((?:npx\s+)?layerlab\s+[^`]*)`/.exec(line);
    const hit = row?.[1] ? invocationAt(row[1]) : undefined;
    if (hit) found.push({ ...hit, flags: flagsOf(line.replace(/\\\|/g, '|')), text: line.trim() });
  }
  for (const span of prose.matchAll(/`([^`]+)`/g)) {
    const text = span[1] ?? '';
    if (!/^(?:npx\s+)?layerlab\s/.test(text)) continue;
    const hit = invocationAt(text.replace(/\\\|/g, '|'));
    if (hit) found.push({ ...hit, flags: flagsOf(text), text: text.replace(/\s+/g, ' ') });
  }
  return found;
}

function unknownCliNames(markdown: string, spec: CliSpec): string[] {
  const problems: string[] = [];
  for (const found of layerlabCommandLines(markdown)) {
    const sub = `${found.command} ${found.word}`;
    const line = found.word && spec.commands.has(sub) ? { ...found, command: sub } : found;
    const known = spec.commands.get(line.command);
    if (!known) {
      problems.push(`no command "${line.command}" in: ${line.text}`);
      continue;
    }
    for (const flag of line.flags) {
      if (!known.has(flag) && !spec.global.has(flag)) {
        problems.push(`layerlab ${line.command} has no ${flag}, in: ${line.text}`);
      }
    }
  }
  return problems;
}

// ------------------------------------------------------------ lab-file keys

function unwrap(schema: z.ZodTypeAny): z.ZodTypeAny {
  let s = schema;
  for (;;) {
    if (s instanceof z.ZodEffects) s = s.innerType();
    else if (s instanceof z.ZodDefault) s = s._def.innerType;
    else if (s instanceof z.ZodOptional) s = s.unwrap();
    else return s;
  }
}

/** The default a key takes when omitted, when it is a plain value (objects and lists are not compared). */
function plainDefault(schema: z.ZodTypeAny): string | undefined {
  let s = schema;
  for (;;) {
    if (s instanceof z.ZodDefault) {
      const value: unknown = s._def.defaultValue();
      return ['string', 'number', 'boolean'].includes(typeof value) ? String(value) : undefined;
    }
    if (s instanceof z.ZodEffects) s = s.innerType();
    else if (s instanceof z.ZodOptional) s = s.unwrap();
    else return undefined;
  }
}

/** A key's description (its zod `.describe()`), found through the wrappers around it. */
function descriptionOf(schema: z.ZodTypeAny): string | undefined {
  let s = schema;
  for (;;) {
    if (s.description) return s.description;
    if (s instanceof z.ZodEffects) s = s.innerType();
    else if (s instanceof z.ZodDefault) s = s._def.innerType;
    else if (s instanceof z.ZodOptional) s = s.unwrap();
    else return undefined;
  }
}

/** A key of the lab file as the schema has it: its plain default and its description. */
interface SchemaKey {
  default: string | undefined;
  description: string | undefined;
}

const schemaKey = (s: z.ZodTypeAny): SchemaKey => ({ default: plainDefault(s), description: descriptionOf(s) });

/** Is this an object keyed by every scenario name with plain values (scenarioMounts, scenarioRepetitions)? */
function perScenarioMap(shape: Record<string, z.ZodTypeAny>): boolean {
  const keys = Object.keys(shape).sort();
  const names = [...SCENARIO_NAMES].sort();
  return (
    keys.length === names.length &&
    keys.every((k, i) => k === names[i]) &&
    Object.values(shape).every((v) => !(unwrap(v) instanceof z.ZodObject))
  );
}

/** Every key path of the lab file (`hosts[].name`, `scenarioMounts.<scenario>`), with its default and description. */
function schemaKeys(schema: z.ZodTypeAny = labSchema): Map<string, SchemaKey> {
  const keys = new Map<string, SchemaKey>();
  const walk = (s: z.ZodTypeAny, path: string) => {
    const u = unwrap(s);
    if (u instanceof z.ZodObject) {
      const shape = u.shape as Record<string, z.ZodTypeAny>;
      if (path && perScenarioMap(shape)) {
        const any = Object.values(shape)[0] as z.ZodTypeAny;
        keys.set(`${path}.<scenario>`, schemaKey(any));
        return;
      }
      for (const [k, v] of Object.entries(shape)) {
        const p = path ? `${path}.${k}` : k;
        keys.set(p, schemaKey(v));
        walk(v, p);
      }
    } else if (u instanceof z.ZodArray) walk(u.element, `${path}[]`);
    else if (u instanceof z.ZodUnion) for (const option of u.options as z.ZodTypeAny[]) walk(option, path);
  };
  walk(schema, '');
  return keys;
}

/** A row of a key table: its default cell and its "what" cell. */
interface DocumentedKey {
  default: string;
  what: string;
}

/** Rows of the tables whose header starts with `| key | … | default | what |`. */
function documentedKeys(markdown: string): Map<string, DocumentedKey> {
  const keys = new Map<string, DocumentedKey>();
  let defaultColumn = -1;
  let whatColumn = -1;
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) {
      defaultColumn = -1;
      continue;
    }
    // An escaped pipe (`a \| b`) is part of its cell.
    const cells = line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.trim().replace(/\\\|/g, '|'));
    if (cells[0] === 'key') {
      defaultColumn = cells.indexOf('default');
      whatColumn = cells.indexOf('what');
      continue;
    }
    const key = /^`([^`]+)`$/.exec(cells[0] ?? '')?.[1];
    if (defaultColumn < 0 || !key) continue;
    keys.set(key, {
      default: (cells[defaultColumn] ?? '').replace(/^`(.*)`$/, '$1'),
      what: whatColumn < 0 ? '' : (cells[whatColumn] ?? ''),
    });
  }
  return keys;
}

/** A cell's text as an editor shows the description: links reduced to their text. */
const withoutLinks = (markdown: string) => markdown.replace(/\[([^\]]+)\]\([^)]+\)/g, '$1');

/**
 * The key tables against the schema: the same keys, the same defaults, and
 * each key's "what" the schema's description of it (which `layerlab schema`
 * gives editors), so the text has one source; the doc may link words of it.
 */
function labKeyProblems(markdown: string, schema: Map<string, SchemaKey> = schemaKeys()): string[] {
  const documented = documentedKeys(markdown);
  const problems: string[] = [];
  for (const key of schema.keys()) if (!documented.has(key)) problems.push(`schema key ${key} is not documented`);
  for (const [key, shown] of documented) {
    const actual = schema.get(key);
    if (!actual) {
      problems.push(`documented key ${key} is not in the schema`);
      continue;
    }
    if (actual.default !== undefined && shown.default !== actual.default) {
      problems.push(`${key}: documented default "${shown.default}", schema default "${actual.default}"`);
    }
    if (!actual.description) problems.push(`${key}: no .describe() in the schema`);
    else if (withoutLinks(shown.what) !== actual.description) {
      problems.push(`${key}: documented "${shown.what}", the schema's description "${actual.description}"`);
    }
  }
  return problems;
}

/** The lab files a page shows whole: ```yaml blocks that start with `name:`. */
function labExamples(markdown: string): string[] {
  return [...markdown.matchAll(/```ya?ml\n(name: [\s\S]*?)```/g)].map((m) => m[1] ?? '');
}

// ------------------------------------------------------ run ids and commits

const RUN_ID = /\d{8}-\d{6}-/g;
const HEX_WORD = /(?<![\w-])[0-9a-f]{7,40}(?![\w-])/g;

/** Which of these words name a commit of this repository (one `git cat-file --batch-check`). */
function commitsAmong(words: string[]): Set<string> | undefined {
  if (!words.length) return new Set();
  const out = spawnSync('git', ['cat-file', '--batch-check'], {
    cwd: ROOT,
    input: `${words.map((w) => `${w}^{commit}`).join('\n')}\n`,
    encoding: 'utf8',
  });
  if (out.status !== 0) return undefined;
  const lines = out.stdout.trimEnd().split('\n');
  return new Set(words.filter((_, i) => / commit \d+$/.test(lines[i] ?? '')));
}

function historyProblems(markdown: string, isCommit: (words: string[]) => Set<string> | undefined): string[] {
  const problems = [...markdown.matchAll(RUN_ID)].map((m) => {
    const line = markdown.slice(0, m.index).split('\n').length;
    return `line ${line}: a run id (${markdown.slice(m.index, (m.index ?? 0) + 24)}…): it belongs in bench/RESULTS.md`;
  });
  const words = [...new Set([...markdown.matchAll(HEX_WORD)].map((m) => m[0]))];
  const commits = isCommit(words) ?? new Set();
  for (const c of commits) problems.push(`commit hash ${c}: it belongs in bench/RESULTS.md`);
  return problems;
}

/** Lines as `wc -l` counts them; a problem when over the limit. */
function readmeLengthProblem(text: string): string | undefined {
  const lines = text.split('\n').length - 1;
  return lines > README_MAX_LINES
    ? `README.md has ${lines} lines (at most ${README_MAX_LINES}); move the rest to docs/`
    : undefined;
}

function gitAvailable(): boolean {
  return spawnSync('git', ['rev-parse', '--git-dir'], { cwd: ROOT }).status === 0;
}

// --------------------------------------------------------------- test paths

/** Pages that name test files for a reader: the docs, and the guides beside the code. */
function pagesNamingTests(): Page[] {
  const guides = ['CONTRIBUTING.md', 'infra/README.md'].map((name) => ({
    name,
    text: readFileSync(join(ROOT, name), 'utf8'),
  }));
  return [...pages(), ...guides];
}

/** A path under test/, as far as path characters go; one with a placeholder (<name>, *) is a pattern, not a path. */
const TEST_PATH = /(?<![\w./-])test\/[\w./<>*-]*/g;

function missingTestPaths(markdown: string, exists = (path: string) => existsSync(join(ROOT, path))): string[] {
  const paths = (markdown.match(TEST_PATH) ?? []).map((p) => p.replace(/\.+$/, '')).filter((p) => !/[<>*]/.test(p));
  return [...new Set(paths)].filter((p) => !exists(p)).map((p) => `${p} does not exist`);
}

// -------------------------------------------------------------------- tests

describe('docs name only what exists', () => {
  const spec = cliSpec();

  it('every `layerlab <command> --flag` in README.md and docs/ is defined by that command', () => {
    const problems = pages().flatMap((p) => unknownCliNames(p.text, spec).map((x) => `${p.name}: ${x}`));
    assert.deepEqual(problems, []);
  });

  it('finds the CLI table: every command has a row in README.md', () => {
    const named = new Set(
      layerlabCommandLines(readFileSync(README, 'utf8')).flatMap((l) => [l.command, `${l.command} ${l.word}`]),
    );
    assert.deepEqual(
      [...spec.commands.keys()].filter((c) => c !== 'help' && !named.has(c)),
      [],
      'a command without a row in the README',
    );
  });

  it("docs/lab-definition.md's key tables list exactly the schema's keys, with its defaults", () => {
    assert.deepEqual(labKeyProblems(readFileSync(LAB_DEFINITION_DOC, 'utf8')), []);
  });

  it('every whole lab file shown in README.md and docs/ is valid', () => {
    const problems: string[] = [];
    for (const page of pages()) {
      for (const yaml of labExamples(page.text)) {
        try {
          parseLabDefinition(yaml, join(ROOT, page.name), {});
        } catch (err) {
          problems.push(`${page.name}: ${(err as Error).message}`);
        }
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(labExamples(readFileSync(README, 'utf8')).length > 0, 'the README shows a lab file');
  });

  it('no run id or commit hash in README.md or docs/', (t) => {
    if (!gitAvailable()) t.diagnostic('not a git checkout: commit hashes unchecked, run ids checked');
    const problems = pages().flatMap((p) => historyProblems(p.text, commitsAmong).map((x) => `${p.name}: ${x}`));
    assert.deepEqual(problems, []);
  });

  it("docs/reading-the-report.md's seed-claims table has a row for every claim rule, with its seed", () => {
    const text = readFileSync(join(DOCS, 'reading-the-report.md'), 'utf8');
    const section = text.slice(text.indexOf('## Seed claims'));
    const rows = section
      .slice(section.indexOf('| seed | claim |'))
      .split('\n')
      .slice(2)
      .filter((l) => l.startsWith('| '))
      .map((l) => l.split('|')[1]?.trim());
    const rules = Object.values(SCENARIOS)
      .flatMap((s) => s.report.claims.map((r) => ({ position: r.position, seed: s.seed })))
      .sort((a, b) => a.position - b.position)
      .map((r) => r.seed);
    assert.deepEqual(rows, rules, 'one row per rule, in report order, naming the seed of its scenario');
  });

  it(`README.md has at most ${README_MAX_LINES} lines`, () => {
    assert.equal(readmeLengthProblem(readFileSync(README, 'utf8')), undefined);
  });

  it('every test/… path in README.md, docs/, CONTRIBUTING.md and infra/README.md exists', () => {
    const problems = pagesNamingTests().flatMap((p) => missingTestPaths(p.text).map((x) => `${p.name}: ${x}`));
    assert.deepEqual(problems, [], 'name the test where it lives now (test/unit mirrors lab/)');
  });
});

describe('each docs check can fail', () => {
  const spec = cliSpec();

  it('an unknown flag, a flag of another command and an unknown command', () => {
    const page = [
      'Run `layerlab up --lab x.yaml --colder`.',
      '```sh',
      'npx layerlab report --lab x.yaml   # report takes no --lab',
      'layerlab frobnicate',
      '```',
      '| `layerlab all --lab <file>` | `--kept` leaves it up |',
      'Then `layerlab history plot --colour red --last 3`.',
    ].join('\n');
    const problems = unknownCliNames(page, spec);
    assert.equal(problems.length, 5, problems.join('\n'));
    assert.match(problems.join('\n'), /history plot has no --colour/);
    assert.match(problems.join('\n'), /up has no --colder/);
    assert.match(problems.join('\n'), /report has no --lab/);
    assert.match(problems.join('\n'), /no command "frobnicate"/);
    assert.match(problems.join('\n'), /all has no --kept/);
  });

  it("other tools' flags and layerlab's own names in other roles are not checked", () => {
    const page = [
      '```sh',
      'npm run bench:vm-variants -- --knob cpus',
      'pulumi config set --path layerlab:sshCidrs[0] 203.0.113.7/32',
      'node --import tsx --test x.test.ts',
      'layerlab up --lab q.yaml --target aws --ssh-cidr "$(curl -fsS --max-time 5 https://x)/32" && aws s3 cp --quiet a b',
      '```',
      'The image is labelled `layerlab.lab=<lab>`; `--install` alone is not a command line.',
    ].join('\n');
    assert.deepEqual(unknownCliNames(page, spec), []);
  });

  it('a key the schema lacks, a key the doc misses, a wrong default, a description of its own', () => {
    const doc = readFileSync(LAB_DEFINITION_DOC, 'utf8')
      .replace(/^\| `hosts\[\]\.cpus` .*\n/m, '')
      .replace('| `seed` | integer 0…2³²−1 | `1` |', '| `seed` | integer | `7` |')
      .replace(/^(\| `target\.aws\.rootGiB` .*\| )[^|]+( \|)$/m, '$1the root disk$2')
      .concat('\n| key | type | default | what |\n|---|---|---|---|\n| `hosts[].gpu` | boolean | `false` | |\n');
    const problems = labKeyProblems(doc);
    assert.deepEqual(problems.sort(), [
      'documented key hosts[].gpu is not in the schema',
      'schema key hosts[].cpus is not documented',
      'seed: documented default "7", schema default "1"',
      'target.aws.rootGiB: documented "the root disk", the schema\'s description "size of the root volume"',
    ]);
  });

  it('a key without a description in the schema', () => {
    const schema = z.object({ seed: z.number().default(1), name: z.string().describe('the name') });
    const doc =
      '| key | type | default | what |\n|---|---|---|---|\n| `seed` | integer | `1` | seed |\n| `name` | text | required | the [name](#names) |\n';
    assert.deepEqual(labKeyProblems(doc, schemaKeys(schema)), ['seed: no .describe() in the schema']);
  });

  it('a run id and a real commit hash', { skip: !gitAvailable() && 'not a git checkout' }, () => {
    const head = spawnSync('git', ['rev-parse', '--short=7', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
    const page = `fast on run 20261203-202707-quick-534a at ${head}; seed 20261130 and sha deadbeefcafe are not commits`;
    const problems = historyProblems(page, commitsAmong);
    assert.equal(problems.length, 2, problems.join('\n'));
    assert.match(problems[0] ?? '', /run id/);
    assert.match(problems[1] ?? '', new RegExp(`commit hash ${head}`));
  });

  it('a test path that moved, among real paths, patterns and words that are not paths', () => {
    const page = [
      '`test/unit/scheduler.test.ts` drives the scheduler; `test/unit/run/scheduler.test.ts` too.',
      'Fixtures in `test/fixtures/<scenario>/`, unit tests in test/unit/<layer>/<module>.test.ts and test/e2e/.',
      'A latest/test/x path and `npm test` are not test paths.',
    ].join('\n');
    assert.deepEqual(missingTestPaths(page), ['test/unit/scheduler.test.ts does not exist']);
  });

  it('a README over the limit', () => {
    assert.equal(readmeLengthProblem('line\n'.repeat(README_MAX_LINES)), undefined);
    assert.match(readmeLengthProblem('line\n'.repeat(README_MAX_LINES + 1)) ?? '', /251 lines/);
  });
});
