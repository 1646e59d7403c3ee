import { existsSync, readFileSync } from 'node:fs';
import { say } from '../run/progress.js';
import { type NdjsonWarn, appendLineSync, parseNdjson } from '../util/files.js';

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

  /**
   * Every entry so far. A torn last line (a crash or a full disk mid-append)
   * is skipped with a warning; a bad line elsewhere throws naming file and line.
   */
  static read(path: string, warn: NdjsonWarn = say): JournalEntry[] {
    if (!existsSync(path)) return [];
    return parseNdjson<JournalEntry>(readFileSync(path, 'utf8'), path, warn);
  }

  /** The last state of every trial. */
  static finalStates(entries: readonly JournalEntry[]): Map<string, JournalEntry> {
    const states = new Map<string, JournalEntry>();
    for (const e of entries) states.set(e.trial, e);
    return states;
  }
}
