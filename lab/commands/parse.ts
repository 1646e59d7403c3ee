import { readFile } from 'node:fs/promises';
import { UserError } from '../errors.js';
import { SCENARIO_NAMES, getScenario } from '../scenarios/index.js';
import { jsonText, visible } from '../util/safe-text.js';

/** `layerlab parse <scenario> <raw-file>`: samples as NDJSON on stdout, failures on stderr. */
export async function parseCommand(scenarioName: string, file: string): Promise<number> {
  const scenario = getScenario(scenarioName);
  if (!scenario)
    throw new UserError(`unknown scenario "${scenarioName}"; expected one of ${SCENARIO_NAMES.join(', ')}`);
  let raw: string;
  try {
    raw = await readFile(file, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read ${file}: ${(err as Error).message}`);
  }
  const result = scenario.parse(raw);
  for (const v of result.values) {
    process.stdout.write(
      `${jsonText({ scenario: scenario.name, metric: v.metric, value: v.value, unit: v.unit, ...v.labels })}\n`,
    );
  }
  // A failure can quote the raw output (a fio job name): shown, never run by the terminal.
  for (const f of result.failures) process.stderr.write(`failed: ${visible(f)}\n`);
  return result.failures.length ? 1 : 0;
}
