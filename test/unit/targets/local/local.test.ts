/**
 * A local host counts as prepared only with every tool image its lab's
 * scenarios run in: a scenario added to the lab file after `up` sends the
 * next `up` or `run` through prepare, which loads what is missing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { preparedWith } from '../../../../lab/targets/local/local.ts';
import type { LocalHostState } from '../../../../lab/targets/local/state.ts';

describe('preparedWith', () => {
  const host: LocalHostState = {
    name: 'a',
    profile: 'overlay2-xfs',
    dir: '/nowhere',
    prepared: true,
    toolImages: ['fio'],
  };

  it('holds when the host was prepared with every image asked for', () => {
    assert.equal(preparedWith({ ...host, toolImages: ['fio', 'shell'] }, ['shell', 'fio']), true, 'both images there');
    assert.equal(preparedWith(host, []), true, 'a lab without tool images');
  });

  it('fails when the lab now needs an image the host was not prepared with', () => {
    assert.equal(preparedWith(host, ['fio', 'shell']), false, 'shell was added to the lab after up');
  });

  it('fails for a host not prepared, or one whose state does not say which images it has', () => {
    assert.equal(preparedWith({ ...host, prepared: false }, ['fio']), false, 'not prepared');
    assert.equal(
      preparedWith({ ...host, toolImages: undefined }, ['fio']),
      false,
      'state from before images were recorded',
    );
    assert.equal(preparedWith(undefined, []), false, 'no such host');
  });
});
