import { existsSync, readFileSync } from 'node:fs';
import { type NdjsonWarn, appendLineSync, parseNdjson } from '../util/files.js';
import { say } from '../util/log.js';
import { checkWith } from './check.js';
import { type JournalEntry, journalEntrySchema } from './schemas.js';

export type { JournalEntry, TrialState } from './schemas.js';

/** Append-only, fsynced trial states: what finished survives a crash. */
export class Journal {
  constructor(readonly path: string) {}

  append(entry: Omit<JournalEntry, 'at'>): void {
    appendLineSync(this.path, JSON.stringify({ at: new Date().toISOString(), ...entry }));
  }

  /**
   * Every entry so far. A torn last line (a crash or a full disk mid-append)
   * is skipped with a warning; a bad line elsewhere throws naming file and line.
   */
  static read(path: string, warn: NdjsonWarn = say): JournalEntry[] {
    if (!existsSync(path)) return [];
    return parseNdjson(readFileSync(path, 'utf8'), path, warn, checkWith(journalEntrySchema));
  }

  /** The last state of every trial. */
  static finalStates(entries: readonly JournalEntry[]): Map<string, JournalEntry> {
    const states = new Map<string, JournalEntry>();
    for (const e of entries) states.set(e.trial, e);
    return states;
  }

  /**
   * Each trial's position in the run: the line of its last `done` entry (of
   * its last entry when it never finished). The journal is appended by the
   * controller as trials end, so its line order is the order they ran in —
   * a resumed run's retried trials included, which plan.json does not know,
   * and without the guests' clocks, which sample timestamps depend on. Only
   * the order of positions means anything (trials of one host never overlap;
   * in parallel mode two hosts' trials interleave by when they ended).
   */
  static runOrder(entries: readonly JournalEntry[]): Map<string, number> {
    const positions = new Map<string, number>();
    const finished = new Set<string>();
    entries.forEach((e, line) => {
      if (e.state === 'done') {
        positions.set(e.trial, line);
        finished.add(e.trial);
      } else if (!finished.has(e.trial)) positions.set(e.trial, line);
    });
    return positions;
  }
}
