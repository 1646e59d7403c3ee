/**
 * Issue 14 items 3 and 5: commands are thin and never import each other,
 * phases never import commands, cli.ts goes through commands (not into a
 * target), and what is a target's own (how to remove its lab by hand, how
 * long its hosts may take to boot) comes from its driver.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { loadLabDefinition } from '../../lab/definition/load.ts';
import { TARGET_DRIVERS } from '../../lab/targets/index.ts';

const LAB = resolve(import.meta.dirname, '..', '..', 'lab');
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
