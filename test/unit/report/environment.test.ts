/** Issue 37 item 1: the hosts' environments side by side, the facts that differ marked. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RecordedLab } from '../../../lab/record/load.ts';
import type { HostEnvSummary } from '../../../lab/record/schemas.ts';
import { environmentSection } from '../../../lab/report/environment.ts';
import type { Inline, Table } from '../../../lab/report/model.ts';

const lab: RecordedLab = {
  name: 't',
  hosts: [
    { name: 'a', profile: 'overlay2-xfs' },
    { name: 'b', profile: 'podman-overlay-ext4' },
  ],
  mounts: [],
  scenarioMounts: {},
  equivalent: [],
  scenarios: {},
  scenarioRepetitions: {},
};
const a: HostEnvSummary = {
  kernel: '6.1.0',
  engine: 'docker',
  docker_version: '24.0.7',
  containerd_version: '1.7.1',
  storage_driver: 'overlay2',
  backing_fs: 'xfs',
  docker_root_options: 'rw,relatime,noquota',
  cpus: '2',
  loadavg: '0.10 0.20 0.30 1/100 42',
};
const b: HostEnvSummary = {
  ...a,
  engine: 'podman',
  docker_version: 'podman 4.9.3',
  containerd_version: '',
  storage_driver: 'overlay',
  backing_fs: 'extfs',
  docker_root_options: 'rw,relatime',
  loadavg: '1.50 0.20 0.30 1/100 42',
};

const text = (cell: Inline | null | undefined) => (cell ? cell.map((r) => r.text).join('') : '(none)');
const isBold = (cell: Inline | null | undefined) => !!cell?.every((r) => r.bold);

function tableOf(env: Map<string, HostEnvSummary>): Table {
  const t = environmentSection(lab, env).blocks[0];
  assert.equal(t?.kind, 'table', 'the section opens with its table');
  return t as Table;
}

const rowOf = (t: Table, label: string) => t.rows.find((r) => text(r[0]).startsWith(label));

describe('the Hosts section', () => {
  const t = tableOf(
    new Map([
      ['a', a],
      ['b', b],
    ]),
  );

  it('a column per host (its profile beside it) in the lab’s order', () => {
    assert.deepEqual(
      t.header.map((h) => text(h)),
      ['fact', 'a (overlay2-xfs)', 'b (podman-overlay-ext4)'],
    );
  });

  it('a fact that differs: its name and values bold, "differs" beside the name', () => {
    for (const [label, values] of [
      ['engine', ['docker 24.0.7', 'podman 4.9.3']],
      ['containerd', ['1.7.1', '–']],
      ['storage driver', ['overlay2 on xfs', 'overlay on extfs']],
      ['mount options', ['rw,relatime,noquota', 'rw,relatime']],
    ] as const) {
      const row = rowOf(t, label);
      assert.equal(text(row?.[0]), `${label} — differs`);
      assert.deepEqual(row?.slice(1).map(text), values);
      assert.ok(row?.slice(1).every(isBold), `${label}: the values are bold`);
    }
  });

  it('a fact every host shares is plain; the load at start differs but is never marked (it always does)', () => {
    for (const label of ['kernel', 'CPUs', 'load at start']) {
      const row = rowOf(t, label);
      assert.equal(text(row?.[0]), label);
      assert.ok(!row?.slice(1).some(isBold), `${label}: not bold`);
    }
    assert.equal(rowOf(t, 'OS'), undefined, 'a fact no host recorded has no row');
  });

  it('a host whose summary was unreadable, and one without any, say so; the others’ facts are not marked against them', () => {
    const u = tableOf(
      new Map([
        ['a', a],
        ['c', { unreadable: 'hosts/c/env/summary.json: not JSON' }],
      ]),
    );
    assert.deepEqual(u.rows[0]?.map(text), [
      'summary',
      '(none)',
      'not recorded',
      'unreadable: hosts/c/env/summary.json: not JSON',
    ]);
    assert.equal(text(rowOf(u, 'kernel')?.[0]), 'kernel', 'one readable host: nothing to differ from');
  });
});
