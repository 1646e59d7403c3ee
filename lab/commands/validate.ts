import { loadLabDefinition } from '../definition/load.js';
import { makePlan } from '../plan/plan.js';

/** `layerlab validate <file>`: checks a lab definition and plans it; starts nothing. */
export async function validateCommand(file: string): Promise<void> {
  const lab = await loadLabDefinition(file);
  const plan = makePlan(lab);
  process.stdout.write(
    `ok: ${file}: lab ${lab.name}, ${lab.hosts.length} host(s), ${plan.trials.length} trials (${plan.mode})\n`,
  );
}
