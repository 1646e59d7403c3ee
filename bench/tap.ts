/**
 * Durations from node's TAP output (`node --test`), as bench:ci-like reads
 * `.ci/run`'s: the unit stream, then the e2e stream, each closed by its
 * summary ("# duration_ms N"). In the e2e stream a file's suite is a
 * top-level "ok N - name" followed by its "  duration_ms", after its tests
 * ("    ok N - name" and "      duration_ms").
 */

export interface Timed {
  name: string;
  seconds: number;
  ok: boolean;
}

export interface TapDurations {
  /** Each stream's own total, in the order they ran (unit, e2e). */
  streams: number[];
  /** The e2e stream's files (top-level suites) with their tests. */
  e2eFiles: (Timed & { tests: Timed[] })[];
}

export function e2eDurations(tap: string): TapDurations {
  const streams: number[] = [];
  const e2eFiles: TapDurations['e2eFiles'] = [];
  let tests: Timed[] = [];
  let pending: { name: string; ok: boolean; nested: boolean } | undefined;
  for (const line of tap.split('\n')) {
    const total = /^# duration_ms ([\d.]+)/.exec(line);
    if (total) streams.push(Number(total[1]) / 1000);
    if (streams.length !== 1) continue; // the e2e stream only
    const result = /^( {4})?(ok|not ok) \d+ - (.*)$/.exec(line);
    if (result) pending = { name: result[3] ?? '', ok: result[2] === 'ok', nested: Boolean(result[1]) };
    const own = /^ {2}(?: {4})?duration_ms: ([\d.]+)/.exec(line);
    if (!own || !pending) continue;
    const timed = { name: pending.name, ok: pending.ok, seconds: Number(own[1]) / 1000 };
    if (pending.nested) tests.push(timed);
    else {
      e2eFiles.push({ ...timed, tests });
      tests = [];
    }
    pending = undefined;
  }
  return { streams, e2eFiles };
}
