/**
 * The run marker of stack-lock.ts as the lock tests fake it: kept in memory,
 * and a machine ("ctl", user "ci") where only the test's own live run
 * (pid 1) is alive.
 */
import type { LockWorld, RunMarker } from '../../../../lab/targets/aws/stack-lock.ts';

export class FakeRunMarkers {
  /** What a run of ours on this machine last recorded; a test sets it to stand for a killed run. */
  current: RunMarker | undefined;

  constructor(private readonly stack: string) {}

  readonly markers = {
    read: () => this.current,
    // As the real one: this (live) process records itself, replacing what was there.
    write: async () => {
      this.current = {
        pid: 1,
        startTicks: '1',
        stack: this.stack,
        host: 'ctl',
        user: 'ci',
        since: new Date().toISOString(),
      };
    },
    clear: () => {
      this.current = undefined;
    },
  };
}

/** The machine of FakeRunMarkers: no process of a killed run is alive, the test's own (pid 1) is. */
export const OUR_MACHINE: LockWorld = {
  host: 'ctl',
  user: 'ci',
  pidAlive: () => false,
  markerAlive: (m) => m.pid === 1,
};

/** The run record of a killed run of ours on `stack`: its process (pid 4000) is gone; it began just before a lock from 10:00:05. */
export const killedRun = (stack: string): RunMarker => ({
  pid: 4000,
  startTicks: '99',
  stack,
  host: 'ctl',
  user: 'ci',
  since: '2026-12-04T10:00:04.900Z',
});
