/** The local target as a Pulumi dynamic provider, under mocks (no CLI): what `pulumi up -s local` would declare. */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
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

const { LocalLab, localLabProvider } = await import('../../infra/local/provider.ts');

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
    assert.match(serialized, /lab\/commands\/up\.ts/);
    assert.match(serialized, /lab\/targets\/local\/local\.ts/);
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
