import { CONTAINER_NETWORK } from '../catalog.js';
import type { LabDefinition } from '../definition/schema.js';
import { REMOTE_TRIAL_OUT } from '../paths.js';
import type { Trial } from '../plan/plan.js';
import { boundScenario } from '../scenarios/index.js';

/** The environment guest.sh sees: trial coordinates, tool images, scenario parameters. */
export function trialEnv(trial: Trial, lab: LabDefinition, imageTags: Record<string, string>): Record<string, string> {
  const scenario = boundScenario(lab, trial.scenario);
  const env: Record<string, string> = {
    // One folder for every trial of a host, kept between them (guest/run-trial.sh).
    LL_OUT: REMOTE_TRIAL_OUT,
    LL_SCENARIO: trial.scenario,
    LL_TRIAL: trial.id,
    LL_MOUNT: trial.mount,
    LL_REP: String(trial.rep),
    // What the trial creates in Docker carries the lab's label (guest/lib.sh's docker wrapper).
    LL_LAB: lab.name,
  };
  for (const name of scenario.toolImages) {
    const tag = imageTags[name];
    if (!tag) throw new Error(`tool image ${name} was not loaded`);
    env[`LL_IMAGE_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`] = tag;
  }
  Object.assign(env, scenario.guestEnv());
  // The target's container network (lifecycle's `docker run`; guest/lib.sh
  // started dockerd with the same at prepare).
  env.LL_CONTAINER_NETWORK = CONTAINER_NETWORK[lab.target.kind];
  // How fio and dbench start their container (guest/lib.sh ll_container_run),
  // and how lifecycle lists and the scenarios' cleanup removes containers: the
  // Engine API by default; `cli` is the docker CLI, for bench/fast-lab.ts to compare.
  if (process.env.LAYERLAB_CONTAINER_START === 'cli') env.LL_CONTAINER_START = 'cli';
  return env;
}
