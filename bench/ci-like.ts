/**
 * What CI costs, and where it goes: `.ci/run` on a clean clone of one commit
 * with an empty image cache (LAYERLAB_CACHE on a new folder, so every guest
 * and tool image is built, as on a fresh CI machine).
 *
 * Prints the wall; how busy both cores were over it (/proc/stat); the unit
 * and e2e streams' durations, each e2e file's and each of its tests' (node's
 * TAP output: where a file's time goes); and the
 * CPU seconds of each e2e file's VMs, sampled every second from
 * /proc/<pid>/stat of every qemu whose -pidfile lies in a test's work folder
 * (/tmp/layerlab-e2e-<file>-XXXXXX). QEMU runs daemonized, so `time` would
 * not count it: this is what the e2e files cost, and what two at a time
 * share.
 *
 * Root, on a machine like CI's (.ci/run installs Debian packages); about half
 * an hour. Nothing else should run meanwhile: the figures are the machine's.
 * Usage: npm run bench:ci-like -- [--commit REV] [--keep]
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { USER_HZ, cpuSecondsOf, procStatFields } from '../lab/util/proc.ts';
import { flagValue } from './args.ts';
import { cleanClone, emptyCacheEnv } from './clean-clone.ts';
import { type Timed, e2eDurations } from './tap.ts';

const commit = flagValue('--commit') ?? 'HEAD';
const keep = process.argv.includes('--keep');
if (process.getuid?.() !== 0) {
  console.error('bench:ci-like runs .ci/run, which installs Debian packages: run it as root');
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'layerlab-ci-like-'));
const clone = join(work, 'clone');
const rev = cleanClone(clone, commit);

/** Busy and total ticks of all cores since boot (/proc/stat's first line). */
function cpuTicks(): { busy: number; total: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0); // idle + iowait
  return { busy: total - idle, total };
}

/** The e2e file a qemu belongs to, from its -pidfile's work folder; undefined for any other process. */
function e2eFileOf(pid: string): string | undefined {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (!argv[0]?.includes('qemu-system')) return undefined;
    const pidfile = argv[argv.indexOf('-pidfile') + 1] ?? '';
    return /\/layerlab-e2e-([^/]+)-[A-Za-z0-9]{6}\//.exec(pidfile)?.[1] ?? 'not an e2e file';
  } catch {
    return undefined;
  }
}

/** CPU seconds of each qemu seen, by pid and start time (a reused pid is another process). */
const qemus = new Map<string, { file: string; seconds: number }>();
function sampleQemus(): void {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const fields = procStatFields(Number(pid));
    if (!fields) continue;
    const id = `${pid}@${fields[19]}`;
    const seen = qemus.get(id);
    const seconds = cpuSecondsOf(fields);
    if (seen) seen.seconds = seconds;
    else {
      const file = e2eFileOf(pid);
      if (file) qemus.set(id, { file, seconds });
    }
  }
}

const logPath = join(work, 'ci.log');
const log = createWriteStream(logPath);
const before = cpuTicks();
const started = Date.now();
const sampler = setInterval(sampleQemus, 1000);
console.error(`bench:ci-like: .ci/run at ${rev} in ${clone}; its output goes to ${logPath}`);
const child = spawn(join(clone, '.ci', 'run'), [], {
  cwd: clone,
  env: { ...process.env, ...emptyCacheEnv(work) },
  stdio: ['ignore', 'pipe', 'pipe'],
});
child.stdout.pipe(log, { end: false });
child.stderr.pipe(log, { end: false });
const code = await new Promise<number | null>((done) => child.on('close', done));
clearInterval(sampler);
sampleQemus();
const wall = (Date.now() - started) / 1000;
const after = cpuTicks();
await new Promise((done) => log.end(done));

const { streams, e2eFiles } = e2eDurations(readFileSync(logPath, 'utf8'));

const byFile = new Map<string, number>();
for (const q of qemus.values()) byFile.set(q.file, (byFile.get(q.file) ?? 0) + q.seconds);
const busy = (after.busy - before.busy) / USER_HZ;
const share = (after.busy - before.busy) / (after.total - before.total);
console.log(`.ci/run at ${rev}, clean clone, empty image cache: exit ${code}`);
console.log(`wall ${wall.toFixed(0)} s; all cores ${(share * 100).toFixed(0)}% busy (${busy.toFixed(0)} CPU-s)`);
console.log(`unit ${streams[0]?.toFixed(0) ?? '?'} s, e2e ${streams[1]?.toFixed(0) ?? '?'} s (node's durations)`);
const status = (t: Timed) => (t.ok ? 'ok    ' : 'FAILED');
for (const f of e2eFiles) {
  console.log(`  ${status(f)} ${f.seconds.toFixed(0).padStart(5)} s  ${f.name}`);
  for (const t of f.tests) console.log(`    ${status(t)} ${t.seconds.toFixed(0).padStart(5)} s  ${t.name}`);
}
const qemuTotal = [...byFile.values()].reduce((a, b) => a + b, 0);
console.log(`qemu CPU-s by e2e file (work folder), ${qemuTotal.toFixed(0)} in all:`);
for (const [file, seconds] of [...byFile].sort((a, b) => b[1] - a[1]))
  console.log(`  ${seconds.toFixed(0).padStart(6)}  ${file}`);
if (keep) console.log(`kept: ${work}`);
else rmSync(work, { recursive: true, force: true });
process.exit(code === 0 ? 0 : 1);
