/**
 * Issue 35, finding N4: which controller's lab a Pulumi stack is, as the
 * stack's own outputs (in the backend) say, and the refusal of any other.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UserError } from '../../../../lab/errors.ts';
import {
  controllerConfigValue,
  controllerTagValue,
  outputsController,
  parseControllerConfig,
  refuseOtherController,
} from '../../../../lab/targets/aws/stack-owner.ts';
import { controllerOf } from '../../../../lab/targets/controller.ts';

const alice = controllerOf('night', 'alice@ctl', '/home/alice/one/.layerlab');
const aliceOtherHome = controllerOf('night', 'alice@ctl', '/home/alice/two/.layerlab');

describe('targets/aws/stack-owner', () => {
  it('two LAYERLAB_HOMEs of one user are two controllers', () => {
    assert.notEqual(alice.id, aliceOtherHome.id, 'the id covers LAYERLAB_HOME');
    assert.notEqual(alice.id, controllerOf('day', 'alice@ctl', alice.home).id, 'and the lab');
  });

  it('the config keeps since when while the stack stays the same controller’s, and restarts it for another', () => {
    const first = controllerConfigValue(alice, undefined, new Date('2026-12-01T10:00:00Z'));
    assert.equal(parseControllerConfig(first)?.since, '2026-12-01T10:00:00.000Z', 'recorded at the first up');
    const again = controllerConfigValue(alice, first, new Date('2026-12-02T10:00:00Z'));
    assert.equal(parseControllerConfig(again)?.since, '2026-12-01T10:00:00.000Z', 'kept by a later up');
    const other = controllerConfigValue(aliceOtherHome, first, new Date('2026-12-03T10:00:00Z'));
    assert.equal(parseControllerConfig(other)?.id, aliceOtherHome.id, 'another controller writes itself');
    assert.equal(parseControllerConfig(other)?.since, '2026-12-03T10:00:00.000Z', 'from its own time');
    assert.equal(parseControllerConfig('not json'), undefined, 'a value layerlab did not write is no controller');
  });

  it('up/run refuse a stack whose outputs name another controller, naming it and since when', () => {
    const outputs = { inventory: { value: { controller: JSON.parse(controllerConfigValue(alice, undefined)) } } };
    assert.doesNotThrow(() => refuseOtherController('night', outputsController(outputs), alice), 'its holder passes');
    assert.throws(
      () => refuseOtherController('night', outputsController(outputs), aliceOtherHome),
      (err: Error) =>
        err instanceof UserError &&
        err.message.includes(
          'Pulumi stack night is in use by lab night of alice@ctl (LAYERLAB_HOME /home/alice/one/.layerlab), since 20',
        ) &&
        err.message.includes('pulumi destroy --stack night'),
    );
    assert.doesNotThrow(() => refuseOtherController('night', outputsController({}), alice), 'a new stack is free');
    assert.doesNotThrow(
      () => refuseOtherController('night', outputsController({ inventory: { value: { controller: 7 } } }), alice),
      'a stack that records no controller (made before this) is free',
    );
  });

  it('the EC2 tag stays within 256 characters', () => {
    const long = controllerOf('night', 'alice@ctl', `/${'x'.repeat(400)}`);
    const tag = controllerTagValue({ ...long, since: '2026-12-01T10:00:00.000Z' });
    assert.equal(tag.length, 256, 'cut to EC2’s limit');
    assert.ok(tag.startsWith('alice@ctl /xxx'), `names who first: ${tag.slice(0, 20)}`);
  });
});
