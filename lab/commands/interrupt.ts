import { labStateDir } from '../paths.js';
import { downHint } from '../phases/teardown.js';
import type { LoadedLab } from '../targets/driver.js';
import { say } from '../util/log.js';

/**
 * Ctrl-C / SIGTERM: the first asks the run to stop after the current trial
 * (and `all` still tears down); the second exits at once and says what may be left.
 */
export function installInterruptHandler(loaded: LoadedLab): AbortController {
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (!controller.signal.aborted) {
      say(`${sig}: stopping after the current step; tearing down (press Ctrl-C again to exit now)`);
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
