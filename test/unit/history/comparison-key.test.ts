import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { comparisonKey, keyChanges } from '../../../lab/history/comparison-key.ts';
import { amiOf, night } from './nights.ts';

describe('comparison keys', () => {
  it('per host: the machine from the inventory labels, the software from env summary.json', () => {
    const key = comparisonKey(night({ n: 1 }));
    assert.deepEqual(key.xfs, {
      instanceType: 'm6i.large',
      ...amiOf('20261101-1900'),
      region: 'eu-central-1',
      kernel: '6.1.0-27-cloud-amd64',
      docker_version: '27.3.1',
      containerd_version: '1.7.22',
      storage_driver: 'overlay2',
    });
    assert.ok(!('hostname' in (key.xfs ?? {})), 'a hostname changes every night and is not part of it');
  });

  it('names the fields that changed; a field one side lacks is unknown, not a change', () => {
    const before = { xfs: { kernel: '6.1.0-27', ami: 'ami-1' }, dm: { kernel: '6.1.0-27' } };
    const after = { xfs: { kernel: '6.1.0-28', ami: 'ami-2', docker_version: '27' }, dm: { kernel: '6.1.0-27' } };
    assert.deepEqual(keyChanges(before, after), ['xfs: ami ami-1 → ami-2', 'xfs: kernel 6.1.0-27 → 6.1.0-28']);
    assert.deepEqual(keyChanges({}, after), []);
  });
});
