/** lab/run/trial-env.ts: what a trial's guest.sh sees of its lab's target. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLabDefinition } from '../../../lab/definition/load.ts';
import { makePlan } from '../../../lab/plan/plan.ts';
import { trialEnv } from '../../../lab/run/trial-env.ts';

const lab = parseLabDefinition(
  'name: t\nhosts: [{ name: a, profile: overlay2-xfs }]\nscenarios: { lifecycle: { churnContainers: 0 } }\nmounts: [layer]\nrepetitions: 1\n',
  't.yaml',
);
const [trial] = makePlan(lab).trials;

describe("trialEnv: the target's container network (issue 39)", () => {
  it("LL_CONTAINER_NETWORK is default (Docker's bridge, as seed 004) on aws only, none on local and static", () => {
    assert.ok(trial, 'a lifecycle trial');
    const network = (kind: 'local' | 'aws' | 'static') =>
      trialEnv(trial, { ...lab, target: { ...lab.target, kind } }, { shell: 'layerlab/shell:1' }).LL_CONTAINER_NETWORK;
    assert.deepEqual(
      { local: network('local'), aws: network('aws'), static: network('static') },
      { local: 'none', aws: 'default', static: 'none' },
    );
  });
});
