/**
 * prepareHosts asks the target whether each host is prepared with the tool
 * images of the lab's scenarios, and records those images when it prepared one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLabDefinition } from '../../../lab/definition/load.ts';
import { prepareHosts } from '../../../lab/phases/prepare.ts';
import type { Provisioned } from '../../../lab/targets/driver.ts';

const lab = parseLabDefinition(
  'name: prep\nhosts:\n  - { name: a, profile: overlay2-xfs }\nscenarios:\n  fio: {}\n  lifecycle: { churnContainers: 0 }\nmounts: [layer]\nrepetitions: 1\n',
  'prep.yaml',
);

describe('prepareHosts', () => {
  it("asks about the lab's tool images and skips a host that has them all", async () => {
    const asked: string[][] = [];
    const provisioned: Provisioned = {
      inventory: { target: 'local', hosts: [] },
      isPrepared: (_host, images) => {
        asked.push([...images]);
        return true;
      },
      markPrepared: () => assert.fail('nothing to prepare'),
    };
    provisioned.inventory.hosts.push({
      name: 'a',
      profile: 'overlay2-xfs',
      address: '127.0.0.1',
      port: 1,
      user: 'root',
      privateKeyPath: '/nowhere',
      hostKey: 'ssh-ed25519 AAAA test',
      dataDisk: '/dev/vdb',
      labels: {},
    });
    await prepareHosts(lab, provisioned, { ready: [], onHost: [] }, Date.now() + 1000);
    assert.deepEqual(asked.at(0)?.sort(), ['fio', 'shell'], "fio's image and lifecycle's shell image");
  });
});
