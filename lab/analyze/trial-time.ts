import type { TrialTime } from '../record/load.js';
import type { TrialPhase } from '../record/schemas.js';

/**
 * Where the trials' wall time went, per scenario: the controller's wall of
 * every done trial split by the phases its guest marked. The parts, in the
 * order a trial passes through them but with the measured work first:
 */
export const TIME_PARTS = [
  { key: 'timed', label: 'timed work', phases: [] },
  { key: 'tool', label: 'tool overhead', phases: [] },
  { key: 'start', label: 'container start', phases: ['start'] },
  { key: 'storage', label: 'mount and preparation', phases: ['mount', 'prepare'] },
  { key: 'after', label: 'output and cleanup', phases: ['output', 'cleanup'] },
  { key: 'harness', label: 'harness in the guest', phases: ['setup', 'script', 'finish'] },
  { key: 'outside', label: 'controller and SSH', phases: [] },
] as const satisfies readonly { key: string; label: string; phases: readonly TrialPhase[] }[];

export type TimePart = (typeof TIME_PARTS)[number]['key'];

export interface ScenarioTime {
  scenario: string;
  /** Done trials with phases: what the parts are summed over. */
  trials: number;
  /** Done trials without (a run before phases were kept, or the guest's were dropped). */
  unitemised: number;
  /** The first reason a trial's phases were dropped, if any were. */
  dropped?: string;
  /** Sum of the controller's wall time over `trials`. */
  wallSeconds: number;
  /** Seconds of each part summed over `trials`: they add up to wallSeconds (to a little more where a guest's clock ran fast). */
  parts: Record<TimePart, number>;
  /** Wall time over timed work; undefined when nothing was timed. */
  ratio?: number;
}

/**
 * Per scenario, in the order scenarios first appear. The guest's work phase
 * is the tool running (fio: from its container's start to its exit) or the
 * span the script times itself (backup, lifecycle, db-import). Where the
 * scenario fixes how much of it the tool times (`timedOf`: fio's and
 * dbench's ramp and runtime), the rest of it is the tool's overhead — fio's
 * file layout, a program's start-up; otherwise all of it is timed work. The
 * controller's wall beyond the guest's marks is the controller's and SSH's
 * (a guest clock a little fast can make the marks outlast the wall: then none).
 */
export function accountTrialTime(
  times: readonly TrialTime[],
  timedOf: (scenario: string) => number | undefined,
): ScenarioTime[] {
  const byScenario = new Map<string, ScenarioTime>();
  for (const t of times) {
    let row = byScenario.get(t.scenario);
    if (!row) {
      const parts = Object.fromEntries(TIME_PARTS.map((p) => [p.key, 0])) as Record<TimePart, number>;
      row = { scenario: t.scenario, trials: 0, unitemised: 0, wallSeconds: 0, parts };
      byScenario.set(t.scenario, row);
    }
    if (!t.phases) {
      row.unitemised++;
      row.dropped ??= t.phasesDropped;
      continue;
    }
    const phases = t.phases;
    const seconds = (names: readonly TrialPhase[]) => names.reduce((sum, name) => sum + (phases[name] ?? 0), 0);
    const work = seconds(['work']);
    const fixed = timedOf(t.scenario);
    const timed = fixed === undefined ? work : Math.min(work, fixed);
    const split: Record<TimePart, number> = {
      timed,
      tool: work - timed,
      start: 0,
      storage: 0,
      after: 0,
      harness: 0,
      outside: 0,
    };
    for (const part of TIME_PARTS) if (part.phases.length) split[part.key] = seconds(part.phases);
    const guest = TIME_PARTS.reduce((sum, p) => sum + split[p.key], 0);
    split.outside = Math.max(0, t.wallSeconds - guest);
    row.trials++;
    row.wallSeconds += t.wallSeconds;
    for (const part of TIME_PARTS) row.parts[part.key] += split[part.key];
  }
  return [...byScenario.values()].map((row) => ({
    ...row,
    ...(row.parts.timed > 0 ? { ratio: row.wallSeconds / row.parts.timed } : {}),
  }));
}
