import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { TRIAL_PHASES, type TrialPhase, type TrialPhases } from '../record/schemas.js';
import { quoted } from '../util/safe-text.js';

/**
 * A trial's phases file ($LL_OUT/phases, guest/lib.sh's ll_phase): one mark
 * per line, "<phase> <seconds since the epoch>", each the start of a phase
 * that lasts until the next mark; the last mark is `end`. The guest is not
 * trusted: a file that is not exactly that — unknown names, times that go
 * back, too many marks, too big — is dropped whole with the reason (timing
 * is not a measurement: the trial itself stands).
 */

export const PHASES_FILE = 'phases';
/** More than any scenario marks (permissions: 3 a case, lifecycle: 2 a timed step). */
export const MAX_PHASE_MARKS = 500;
const MAX_BYTES = 64 * 1024;
/** "<name> <seconds>[.<fraction>]": digits only, as $EPOCHREALTIME writes them (ll_phase turns a ',' into '.'). */
const MARK = /^([a-z]{1,20}) ([0-9]{1,12})(?:\.([0-9]{1,9}))?$/;
const KNOWN = new Set<string>(TRIAL_PHASES);

export type ParsedPhases =
  | { phases: TrialPhases /** Seconds from the first mark to `end`. */; spanSeconds: number }
  | { problem: string };

/** Seconds as whole microseconds (exact in a double for any epoch time to come). */
function micros(seconds: string, fraction = ''): number {
  return Number(seconds) * 1e6 + Number(fraction.slice(0, 6).padEnd(6, '0'));
}

/** The phases of one file's text, or why they cannot be used. */
export function parsePhases(text: string): ParsedPhases {
  const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  if (lines.length > MAX_PHASE_MARKS) return { problem: `${lines.length} marks, more than ${MAX_PHASE_MARKS}` };
  const marks: { name: string; at: number }[] = [];
  for (const [i, line] of lines.entries()) {
    const m = MARK.exec(line);
    const where = `line ${i + 1}`;
    if (!m) return { problem: `${where}: ${quoted(line.slice(0, 80))} is not "<phase> <seconds>"` };
    const [, name, seconds, fraction] = m as unknown as [string, string, string, string | undefined];
    const last = i === lines.length - 1;
    if (name === 'end' ? !last : !KNOWN.has(name)) {
      return { problem: `${where}: ${name === 'end' ? 'end before the last mark' : `unknown phase ${quoted(name)}`}` };
    }
    const at = micros(seconds, fraction);
    const previous = marks.at(-1);
    if (previous && at < previous.at) return { problem: `${where}: ${name} starts before ${previous.name}` };
    marks.push({ name, at });
  }
  if (marks.length < 2 || marks.at(-1)?.name !== 'end') return { problem: 'the last mark is not end' };
  const phases: TrialPhases = {};
  for (let i = 0; i < marks.length - 1; i++) {
    const { name, at } = marks[i] as { name: TrialPhase; at: number };
    const next = marks[i + 1]?.at ?? at;
    phases[name] = (phases[name] ?? 0) + (next - at);
  }
  for (const name of Object.keys(phases) as TrialPhase[]) phases[name] = (phases[name] ?? 0) / 1e6;
  const first = marks[0]?.at ?? 0;
  return { phases, spanSeconds: ((marks.at(-1)?.at ?? first) - first) / 1e6 };
}

/** The phases file of a pulled trial folder; undefined when there is none (a guest before phases). */
export function readPhases(dir: string): ParsedPhases | undefined {
  const path = join(dir, PHASES_FILE);
  if (!existsSync(path)) return undefined;
  const size = statSync(path).size;
  if (size > MAX_BYTES) return { problem: `${size} bytes, more than ${MAX_BYTES}` };
  return parsePhases(readFileSync(path, 'utf8'));
}

/**
 * The guest's phases lie inside the controller's wall time of the same trial:
 * a span longer than that (with room for two clocks that tick a little
 * apart) is not the trial's.
 */
export function phasesWithinWall(
  parsed: ParsedPhases | undefined,
  wallSeconds: number,
): { phases?: TrialPhases; phasesDropped?: string } {
  if (!parsed) return {};
  if ('problem' in parsed) return { phasesDropped: `phases: ${parsed.problem}` };
  if (parsed.spanSeconds > wallSeconds * 1.05 + 0.5) {
    return {
      phasesDropped: `phases: the guest's marks span ${parsed.spanSeconds.toFixed(3)} s, longer than the trial's ${wallSeconds.toFixed(3)} s`,
    };
  }
  return { phases: parsed.phases };
}
