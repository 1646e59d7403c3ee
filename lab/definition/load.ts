import { readFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { type Document, LineCounter, isMap, isScalar, parseDocument, visit } from 'yaml';
import type { ZodIssue, ZodType, ZodTypeDef } from 'zod';
import { UserError } from '../errors.js';
import { resolveHostImages } from '../targets/local/flatcar-image.js';
import { type LabDefinition, labSchema } from './schema.js';

type PathPart = string | number;

function formatPath(path: readonly PathPart[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out ? `.${part}` : part;
  return out || '(top level)';
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const json = JSON.stringify(value);
  return json && json.length > 60 ? `${json.slice(0, 57)}...` : (json ?? String(value));
}

function describeUnion(path: readonly PathPart[]): string {
  return path[path.length - 1] === 'repetitions'
    ? 'a number of repetitions or a stop rule { min, max, targetCiWidth, budgetMinutes }'
    : 'one of the allowed forms';
}

function issueText(issue: ZodIssue, valueAt: (p: readonly PathPart[]) => unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.received === 'undefined'
        ? `missing; expected ${issue.expected}`
        : `expected ${issue.expected}, got ${issue.received} ${describeValue(valueAt(issue.path))}`;
    case 'invalid_enum_value':
      return `expected one of ${issue.options.join(', ')}; got ${describeValue(issue.received)}`;
    case 'unrecognized_keys':
      return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    case 'too_small':
      return issue.type === 'array'
        ? `expected at least ${issue.minimum} item(s)`
        : `expected ${issue.inclusive ? '>=' : '>'} ${issue.minimum}; got ${describeValue(valueAt(issue.path))}`;
    case 'too_big':
      return issue.type === 'array'
        ? `expected at most ${issue.maximum} item(s)`
        : `expected ${issue.inclusive ? '<=' : '<'} ${issue.maximum}; got ${describeValue(valueAt(issue.path))}`;
    default:
      return `${issue.message}${issue.code === 'custom' ? '' : `; got ${describeValue(valueAt(issue.path))}`}`;
  }
}

/**
 * Line:column of the node at `path` (or of an unknown key inside it). A path
 * the file does not spell out (a default such as a host's `os`) points at the
 * nearest enclosing node that it does.
 */
function locate(doc: Document, lines: LineCounter, path: readonly PathPart[], key?: string): string {
  let at = path.length;
  while (at > 0 && !doc.hasIn(path.slice(0, at))) at--;
  let node = at ? doc.getIn(path.slice(0, at), true) : doc.contents;
  if (key && isMap(node)) {
    const pair = node.items.find((p) => isScalar(p.key) && p.key.value === key);
    if (pair && isScalar(pair.key)) node = pair.key;
  }
  const range = (node as { range?: [number, number, number] } | undefined)?.range;
  if (!range) return '';
  const pos = lines.linePos(range[0]);
  return `:${pos.line}:${pos.col}`;
}

/**
 * How many times aliases may be expanded while building the data: a lab file
 * needs a handful; a "billion laughs" document needs millions.
 */
export const MAX_YAML_ALIASES = 100;

/** An example file to point at when an input file is empty, by what it should be. */
const EXAMPLES: Record<string, string> = { 'lab definition': 'labs/quick.yaml' };

/**
 * The document's data, with alias expansion bounded: an alias bomb is bad
 * input naming the file and the first alias's line (exit 2), not a crash.
 */
function yamlData(doc: Document, lines: LineCounter, shown: string): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (err) {
    let at = '';
    visit(doc, {
      Alias(_key, node) {
        if (node.range) {
          const pos = lines.linePos(node.range[0]);
          at = `:${pos.line}:${pos.col}`;
        }
        return visit.BREAK;
      },
    });
    const why = err instanceof Error ? err.message : String(err);
    throw new UserError(
      `${shown}${at}: malformed YAML: ${why} (aliases may expand at most ${MAX_YAML_ALIASES} times; write the values out)`,
    );
  }
}

/** Parses and validates lab-definition text; every problem names file, line, path and what was expected. */
export interface LabOverrides {
  /** `--target`: where the hosts come from, instead of the file's target.kind. */
  target?: string;
}

/**
 * Parses YAML text and validates it against `schema`; every problem names
 * file:line:col, the path inside and what was expected (UserError, exit 2).
 * `adjust` may change the parsed data before validation (CLI overrides).
 */
export function parseYamlWithSchema<T>(
  text: string,
  file: string,
  schema: ZodType<T, ZodTypeDef, unknown>,
  what: string,
  adjust?: (data: unknown) => void,
): T {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  const shown = relative(process.cwd(), file) || file;
  if (doc.errors.length) {
    const msgs = doc.errors.map((e) => {
      const pos = e.linePos?.[0];
      return `${shown}${pos ? `:${pos.line}:${pos.col}` : ''}: malformed YAML: ${e.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '')}`;
    });
    throw new UserError(msgs.join('\n'));
  }
  const data = yamlData(doc, lines, shown);
  if (data === null || data === undefined) {
    const example = EXAMPLES[what];
    throw new UserError(
      `${shown}: the file is empty; expected ${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what}${example ? ` (see ${example})` : ''}`,
    );
  }
  adjust?.(data);
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const valueAt = (p: readonly PathPart[]) => (p.length ? doc.getIn(p) : data);
  // A union (repetitions: a number or a stop rule) reports the branch that
  // matches the value's type, not "invalid input".
  const expand = (issue: ZodIssue): ZodIssue[] => {
    if (issue.code !== 'invalid_union') return [issue];
    const branches = issue.unionErrors.map((e) => e.issues);
    const typeMismatch = (issues: ZodIssue[]) =>
      issues.filter((i) => i.code === 'invalid_type' && i.path.length === issue.path.length).length;
    const best = [...branches].sort((a, b) => typeMismatch(a) - typeMismatch(b))[0] ?? [];
    if (typeMismatch(best) > 0) {
      const value = valueAt(issue.path);
      // A union that names its forms (sizeParam's errorMap) says so itself.
      const expected = issue.message.startsWith('expected ')
        ? issue.message.slice('expected '.length)
        : describeUnion(issue.path);
      const message =
        value === undefined ? `missing; expected ${expected}` : `expected ${expected}; got ${describeValue(value)}`;
      return [{ ...issue, code: 'custom', message }];
    }
    return best.flatMap(expand);
  };
  const msgs = result.error.issues.flatMap(expand).flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map(
        (key) =>
          `${shown}${locate(doc, lines, issue.path, key)}: ${formatPath([...issue.path, key])}: unknown key "${key}"`,
      );
    }
    return [`${shown}${locate(doc, lines, issue.path)}: ${formatPath(issue.path)}: ${issueText(issue, valueAt)}`];
  });
  throw new UserError(`invalid ${what}:\n  ${msgs.join('\n  ')}`);
}

export function parseLabDefinition(text: string, file: string, overrides: LabOverrides = {}): LabDefinition {
  return parseYamlWithSchema(text, file, labSchema, 'lab definition', (data) => {
    // A host's image: is relative to the lab file's folder; validation then checks that file.
    resolveHostImages(data, dirname(file));
    if (overrides.target !== undefined && data && typeof data === 'object') {
      const record = data as { target?: Record<string, unknown> };
      record.target = { ...(record.target ?? {}), kind: overrides.target };
    }
  });
}

/** Reads an input file; a missing or unreadable one is bad input (exit 2). */
export async function readInputFile(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UserError(`cannot read ${what} ${file}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
}

export async function loadLabDefinition(file: string, overrides: LabOverrides = {}): Promise<LabDefinition> {
  return parseLabDefinition(await readInputFile(file, 'lab definition'), file, overrides);
}
