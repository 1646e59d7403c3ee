import { labStateDir } from '../paths.js';
import { downHint } from '../phases/teardown.js';
import type { LoadedLab } from '../targets/driver.js';
import { say } from '../util/log.js';

/**
 * Ctrl-C / SIGTERM: the first asks the run to stop after the current trial
 * (`all` and `selftest` then tear down; `run` leaves the lab up, as it
 * found it); the second exits at once and says what may be left.
 */
export function installInterruptHandler(
  loaded: LoadedLab,
  then: 'tear down' | 'keep the lab' = 'tear down',
): AbortController {
  const controller = new AbortController();
  const next = then === 'tear down' ? 'tearing down' : `lab ${loaded.lab.name} stays up`;
  const onSignal = (sig: NodeJS.Signals) => {
    if (!controller.signal.aborted) {
      say(`${sig}: stopping after the current step; ${next} (press Ctrl-C again to exit now)`);
      controller.abort(new Error(sig));
      return;
    }
    say(
      `${sig} again: exiting now. Finished trials are kept; \`layerlab run --resume <run-id> --lab <file>\` continues the run. Hosts of lab ${loaded.lab.name} may be left (state in ${labStateDir(loaded.lab.name)}); remove them with \`${downHint(loaded)}\``,
    );
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return controller;
}
