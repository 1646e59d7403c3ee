/**
 * The local target as a Pulumi dynamic provider, under mocks (no CLI): what
 * `pulumi up -s local` would declare, and its serialized code run the way
 * Pulumi's provider host runs it — plain `node`, no tsx, the text loaded with
 * require-from-string and `.handler()` called (@pulumi/pulumi's
 * cmd/dynamic-provider/index.js, getProvider).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import * as pulumi from '@pulumi/pulumi';

const declared: { type: string; name: string; inputs: Record<string, unknown> }[] = [];
pulumi.runtime.setMocks(
  {
    newResource(args) {
      declared.push({ type: args.type, name: args.name, inputs: args.inputs });
      return { id: `${args.name}`, state: { ...args.inputs, inventory: { target: 'local', hosts: [] } } };
    },
    call: () => ({}),
  },
  'layerlab',
  'local',
  false,
);

const { LocalLab, localLabProvider } = await import('../../../../infra/local/provider.ts');

describe('infra/local dynamic provider', () => {
  it('declares one dynamic resource per lab, with its provider serialized', async () => {
    const lab = new LocalLab('quick', { labFile: 'labs/quick.yaml', labName: 'quick' });
    await new Promise((r) => lab.urn.apply(r));
    const resource = declared.find((d) => d.name === 'quick');
    assert.equal(resource?.type, 'pulumi-nodejs:dynamic:Resource');
    assert.equal(resource?.inputs.labFile, resolve('labs/quick.yaml'));
    assert.match(String(resource?.inputs.definitionHash), /^[0-9a-f]{64}$/);
    // Pulumi ships the provider's code to its provider host as text: it must
    // have serialized, and it must reach the same up/down code as the CLI.
    const serialized = String(resource?.inputs.__provider);
    assert.match(serialized, /createLocalLab/);
    assert.match(serialized, /infra\/local\/lab\.ts/);
    assert.match(serialized, /tsx\/dist\/esm\/api/);
  });

  it('replaces the lab (delete first) only when the definition changed', async () => {
    const base = { labFile: '/x/quick.yaml', labName: 'quick', definitionHash: 'a' };
    const same = await localLabProvider.diff?.('quick', { ...base, inventory: { target: 'local', hosts: [] } }, base);
    assert.equal(same?.changes, false);
    const changed = await localLabProvider.diff?.(
      'quick',
      { ...base, inventory: { target: 'local', hosts: [] } },
      { ...base, definitionHash: 'b' },
    );
    assert.deepEqual(
      [changed?.changes, changed?.replaces, changed?.deleteBeforeReplace],
      [true, ['definitionHash'], true],
    );
  });
});

/** What Pulumi's provider host does with a dynamic resource's `__provider` text (cmd/dynamic-provider, getProvider). */
const HOST = `
const { readFileSync } = require('node:fs');
const pulumiDir = require.resolve('@pulumi/pulumi', { paths: [process.cwd()] });
const requireFromString = require(require.resolve('require-from-string', { paths: [pulumiDir] }));
const provider = requireFromString(readFileSync(process.argv[2], 'utf8')).handler();
(async () => {
  const out = {};
  out.diff = await provider.diff('x', { definitionHash: 'a', labName: 'x' }, { definitionHash: 'b', labName: 'x' });
  try {
    await provider.create({ labFile: process.argv[3], labName: 'x', definitionHash: 'a' });
    out.create = 'created';
  } catch (err) {
    out.create = err.message;
  }
  await provider.delete('nolab');
  out.delete = 'deleted';
  process.stdout.write(JSON.stringify(out));
})();
`;

describe('the serialized provider in a plain node (no tsx), as Pulumi runs it', () => {
  const work = mkdtempSync(join(tmpdir(), 'layerlab-provider-host-'));
  after(() => rmSync(work, { recursive: true, force: true }));

  it('loads the lab code: diff, create (refusing a missing lab file) and delete (of no lab) answer', async () => {
    const lab = new LocalLab('host', { labFile: 'labs/quick.yaml', labName: 'host' });
    await new Promise((r) => lab.urn.apply(r));
    const serialized = String(declared.find((d) => d.name === 'host')?.inputs.__provider);
    writeFileSync(join(work, 'provider.js'), serialized);
    writeFileSync(join(work, 'host.cjs'), HOST);
    const { NODE_OPTIONS: _drop, ...env } = process.env;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(work, 'host.cjs'), join(work, 'provider.js'), join(work, 'missing.yaml')],
      {
        cwd: resolve(import.meta.dirname, '..', '..', '..', '..'),
        env: { ...env, LAYERLAB_HOME: join(work, 'state') },
        timeout: 120_000,
      },
    );
    const out = JSON.parse(stdout) as { diff: { changes: boolean }; create: string; delete: string };
    assert.equal(out.diff.changes, true);
    // The lab definition's own error, not node's "Unknown file extension .ts" (what the provider met before).
    assert.match(out.create, /cannot read lab definition .*missing\.yaml/);
    assert.equal(out.delete, 'deleted');
  });
});
