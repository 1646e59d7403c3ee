/**
 * Issue 14 items 3 and 5: commands are thin and never import each other,
 * phases never import commands, cli.ts goes through commands (not into a
 * target), and what is a target's own (how to remove its lab by hand, how
 * long its hosts may take to boot) comes from its driver.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { loadLabDefinition } from '../../lab/definition/load.ts';
import { LAYER_NAMES, type Layer, layerOf } from '../../lab/layers.ts';
import { TARGET_DRIVERS } from '../../lab/targets/index.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const LAB = join(ROOT, 'lab');
const QUICK = resolve(import.meta.dirname, '..', '..', 'labs', 'quick.yaml');

/** The relative module paths a file imports (`from './x.js'`, `import('./x.js')`). */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from\s+|import\()\s*'(\.[^']+)'/g)].map((m) => m[1] as string);
}

const tsFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.ts'));

/** Modules in lab/commands that are shared helpers of every command, not commands. */
const COMMAND_HELPERS = ['./context.js', './interrupt.js'];

describe('layers', () => {
  it('no command imports another command', () => {
    const found = tsFiles(join(LAB, 'commands')).flatMap((f) =>
      imports(join(LAB, 'commands', f))
        .filter((i) => i.startsWith('./') && !COMMAND_HELPERS.includes(i))
        .map((i) => `commands/${f} imports ${i}`),
    );
    assert.deepEqual(found, [], 'commands call phases, never each other');
  });

  it('phases never import commands', () => {
    const found = tsFiles(join(LAB, 'phases')).flatMap((f) =>
      imports(join(LAB, 'phases', f))
        .filter((i) => i.startsWith('../commands/'))
        .map((i) => `phases/${f} imports ${i}`),
    );
    assert.deepEqual(found, [], 'a phase must not depend on a command');
  });

  it('cli.ts wires commander to commands: it reaches into no target', () => {
    const found = imports(join(LAB, 'cli.ts')).filter((i) => i.startsWith('./targets/'));
    assert.deepEqual(found, [], 'cli.ts goes through a command, a phase or the driver interface');
  });
});

describe('target drivers own what is theirs', () => {
  it('the hint to remove a lab by hand, per target (the text the CLI printed before)', async () => {
    const local = await loadLabDefinition(QUICK);
    assert.equal(TARGET_DRIVERS.local.downHint(local, QUICK, {}), 'layerlab down --name quick');
    const fixed = await loadLabDefinition(QUICK, { target: 'static' });
    assert.equal(
      TARGET_DRIVERS.static.downHint(fixed, 'q.yaml', { inventoryFile: 'hosts.yaml' }),
      'layerlab down --lab q.yaml --target static --inventory hosts.yaml; layerlab sweep',
    );
    const cloud = await loadLabDefinition(QUICK, { target: 'aws' });
    assert.equal(
      TARGET_DRIVERS.aws.downHint(cloud, 'q.yaml', {}),
      'layerlab down --lab q.yaml --target aws; layerlab sweep',
    );
    // A stack not named after the lab is found only by its name.
    assert.equal(
      TARGET_DRIVERS.aws.downHint(cloud, 'q.yaml', { stack: 'nightly' }),
      'layerlab down --lab q.yaml --target aws --stack nightly; layerlab sweep',
    );
  });

  it('the boot timeout: the local lab says it; cloud and static hosts get 20 minutes', async () => {
    const local = await loadLabDefinition(QUICK);
    assert.equal(TARGET_DRIVERS.local.bootTimeoutSec(local), local.target.local.bootTimeoutSec);
    assert.equal(TARGET_DRIVERS.aws.bootTimeoutSec(await loadLabDefinition(QUICK, { target: 'aws' })), 20 * 60);
    assert.equal(TARGET_DRIVERS.static.bootTimeoutSec(await loadLabDefinition(QUICK, { target: 'static' })), 20 * 60);
  });

  it('only the local target removes a lab by its name alone', () => {
    assert.equal(typeof TARGET_DRIVERS.local.downByName, 'function', 'local: down --name');
    assert.equal(TARGET_DRIVERS.aws.downByName, undefined, 'aws: no state a name finds');
    assert.equal(TARGET_DRIVERS.static.downByName, undefined, 'static: no state a name finds');
  });
});

/** Import graph: file (relative to the repository root) → the files it imports. */
type Graph = ReadonlyMap<string, readonly string[]>;

/** Every .ts file under `dir`, recursively, relative to the repository root. */
function tsTree(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : tsTree(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * The repository's own files `file` imports: static imports (`import type`
 * too), re-exports (`export ... from`) and dynamic `import()`, as the
 * TypeScript scanner finds them (comments and strings are not imports).
 * A relative import that names no file throws: the graph must be whole.
 */
function fileImports(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true);
  return importedFiles
    .map((i) => i.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => {
      const base = resolve(ROOT, dirname(file), spec);
      const candidates = [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, join(base, 'index.ts')];
      const found = candidates.find((c) => c.endsWith('.ts') && existsSync(c));
      if (!found) throw new Error(`${file}: import '${spec}' names no .ts file`);
      return relative(ROOT, found).split('\\').join('/');
    });
}

function importGraph(dirs: readonly string[]): Graph {
  return new Map(dirs.flatMap(tsTree).map((f) => [f, [...new Set(fileImports(f))]]));
}

/** Files that import each other round (a strongly connected component), and one circle through them. */
interface Circle {
  files: readonly string[];
  path: readonly string[];
}

/** Every circle of the graph: one per strongly connected component (Tarjan), with a path that starts and ends at the same file. */
function findCircles(graph: Graph): Circle[] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.includes(v)) components.push(component);
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return components.map((c) => ({ files: c.sort(), path: circleIn(graph, new Set(c)) }));
}

/** One circle through the first file (by name) of a strongly connected component: breadth-first back to it. */
function circleIn(graph: Graph, component: ReadonlySet<string>): string[] {
  const start = [...component].sort()[0] as string;
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift() as string;
    for (const w of graph.get(v) ?? []) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u: string | undefined = v; u !== undefined && u !== start; u = from.get(u)) path.splice(1, 0, u);
        return [...path, start];
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

/** Imports from a lower layer to a higher one, as "file (Ln) → file (Lm)". */
function findUpwardImports(graph: Graph, layer: (file: string) => Layer | undefined): string[] {
  const found: string[] = [];
  for (const [file, imported] of graph) {
    const own = layer(file);
    for (const target of imported) {
      const theirs = layer(target);
      if (own !== undefined && theirs !== undefined && theirs > own) {
        found.push(`${file} (${LAYER_NAMES[own]}) → ${target} (${LAYER_NAMES[theirs]})`);
      }
    }
  }
  return found.sort();
}

const GRAPH = importGraph(['lab', 'infra', 'bench']);

describe('the import graph of lab/, infra/ and bench/', () => {
  it('reads every kind of import: import type, export from, dynamic import()', () => {
    // Checked on real files, so a change in the scanner cannot blind the checks below.
    assert.ok(GRAPH.get('lab/scenarios/types.ts')?.includes('lab/catalog.ts'), 'import type');
    assert.ok(GRAPH.get('lab/report/plots.ts')?.length, 'static imports');
    assert.ok(GRAPH.size > 150, `${GRAPH.size} files`);
  });

  it('every file has a layer in lab/layers.ts', () => {
    const missing = [...GRAPH.keys()].filter((f) => layerOf(f) === undefined);
    assert.deepEqual(missing, [], 'give each a layer in lab/layers.ts');
  });

  it('has no circle', () => {
    const circles = findCircles(GRAPH);
    assert.deepEqual(
      circles.map((c) => `${c.files.length} files, e.g. ${c.path.join(' → ')}`),
      [],
      `${circles.length} circle(s); break each by moving the shared part down or passing it in`,
    );
  });

  it('has no import from a lower layer to a higher one', () => {
    const upward = findUpwardImports(GRAPH, layerOf);
    assert.deepEqual(upward, [], `${upward.length} upward import(s): see lab/layers.ts for the layers`);
  });
});

describe('the checkers fail on a bad graph', () => {
  const graph = (edges: Record<string, string[]>): Graph => new Map(Object.entries(edges));

  it('a circle is found and printed from its first file back to it', () => {
    const g = graph({ 'a.ts': ['b.ts'], 'b.ts': ['c.ts', 'd.ts'], 'c.ts': ['a.ts'], 'd.ts': [] });
    assert.deepEqual(findCircles(g), [{ files: ['a.ts', 'b.ts', 'c.ts'], path: ['a.ts', 'b.ts', 'c.ts', 'a.ts'] }]);
    assert.deepEqual(
      findCircles(graph({ 'a.ts': ['a.ts'] })),
      [{ files: ['a.ts'], path: ['a.ts', 'a.ts'] }],
      'a file importing itself',
    );
    assert.deepEqual(findCircles(graph({ 'a.ts': ['b.ts'], 'b.ts': [] })), [], 'no circle, nothing found');
  });

  it('two circles are two findings', () => {
    const g = graph({ 'a.ts': ['b.ts'], 'b.ts': ['a.ts'], 'x.ts': ['y.ts'], 'y.ts': ['x.ts', 'a.ts'] });
    assert.deepEqual(
      findCircles(g).map((c) => c.path),
      [
        ['a.ts', 'b.ts', 'a.ts'],
        ['x.ts', 'y.ts', 'x.ts'],
      ],
    );
  });

  it('an import up a layer is found with both files and layers; down and sideways are fine', () => {
    const layers: Record<string, Layer> = { 'types.ts': 0, 'kit.ts': 1, 'registry.ts': 3, 'cli.ts': 4 };
    const g = graph({ 'kit.ts': ['registry.ts', 'types.ts'], 'cli.ts': ['registry.ts'], 'registry.ts': ['kit.ts'] });
    assert.deepEqual(
      findUpwardImports(g, (f) => layers[f]),
      ['kit.ts (L1 toolkits) → registry.ts (L3 registries)'],
    );
  });
});
