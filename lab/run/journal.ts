import { existsSync, readFileSync } from 'node:fs';
import { appendLineSync } from '../util/files.js';

export type TrialState = 'started' | 'done' | 'failed';

export interface JournalEntry {
  at: string;
  trial: string;
  host: string;
  state: TrialState;
  reason?: string;
  /** Seconds the guest scenario script ran (from meta.json). */
  guestSeconds?: number;
  /** Seconds the controller spent on the trial end to end. */
  wallSeconds?: number;
  samples?: number;
}

/** Append-only, fsynced trial states: what finished survives a crash. */
export class Journal {
  constructor(readonly path: string) {}

  append(entry: Omit<JournalEntry, 'at'>): void {
    appendLineSync(this.path, JSON.stringify({ at: new Date().toISOString(), ...entry }));
  }

  static read(path: string): JournalEntry[] {
    if (!existsSync(path)) return [];
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .flatMap((l) => {
        try {
          return [JSON.parse(l) as JournalEntry];
        } catch {
          return []; // a torn last line after a crash
        }
      });
  }

  /** The last state of every trial. */
  static finalStates(entries: readonly JournalEntry[]): Map<string, JournalEntry> {
    const states = new Map<string, JournalEntry>();
    for (const e of entries) states.set(e.trial, e);
    return states;
  }
}
