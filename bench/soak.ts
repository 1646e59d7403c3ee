/**
 * Soak check: `layerlab all` on one lab N times in a row (default
 * labs/quick.yaml, 5 times). After each round it looks for what a leak would
 * leave: processes naming the lab's state folder, listening TCP sockets on
 * 127.0.0.1 that were not there before, files under the state folder, loop
 * devices; and it prints the controller's peak RSS per round, so a growing
 * controller shows as a rising column.
 * Usage: npm run soak [-- labs/other.yaml] [--rounds N]
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { timedLayerlab } from './timed-cli.ts';

const ROOT = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const roundsAt = args.indexOf('--rounds');
const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) : 5;
const labFile = resolve(
  args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--rounds') ?? join(ROOT, 'labs', 'quick.yaml'),
);
const work = mkdtempSync(join(tmpdir(), 'layerlab-soak-'));
const state = join(work, 'state');
const env = { ...process.env, LAYERLAB_HOME: state, LAYERLAB_RESULTS: join(work, 'results') };

function processesNaming(marker: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Local listening TCP sockets ("ip:port"), from /proc/net/tcp. */
function listeningSockets(): Set<string> {
  const out = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === '0A') out.add(cols[1] ?? ''); // 0A = LISTEN
    }
  }
  return out;
}

function loopDevices(): string[] {
  return readdirSync('/sys/block')
    .filter((d) => d.startsWith('loop') && existsSync(`/sys/block/${d}/loop/backing_file`))
    .map((d) => `${d}:${readFileSync(`/sys/block/${d}/loop/backing_file`, 'utf8').trim()}`);
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

const socketsBefore = listeningSockets();
const loopsBefore = new Set(loopDevices());
const rows: string[] = [];
let leaks = 0;
try {
  for (let round = 1; round <= rounds; round++) {
    const r = await timedLayerlab(env, 'all', '--lab', labFile);
    const procs = processesNaming(state);
    const sockets = [...listeningSockets()].filter((s) => !socketsBefore.has(s));
    const loops = loopDevices().filter((l) => !loopsBefore.has(l));
    const files = filesUnder(join(state, 'labs'));
    leaks += procs.length + sockets.length + loops.length + files.length;
    rows.push(
      `| ${round} | ${r.code} | ${r.seconds.toFixed(0)} | ${(r.peakRssKiB / 1024).toFixed(0)} | ${procs.length} | ${sockets.length} | ${files.length} | ${loops.length} |`,
    );
    process.stderr.write(`soak: round ${round}/${rounds} done\n`);
  }
  const rss = rows.map((r) => Number(r.split('|')[4]));
  console.log(`soak: ${labFile}, ${rounds} rounds of \`layerlab all\`\n`);
  console.log(
    '| round | exit | wall s | controller peak RSS MB | processes left | new listening sockets | files left in state | loop devices |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
  const first = rss[0] ?? 0;
  const last = rss[rss.length - 1] ?? 0;
  console.log(`\npeak RSS last/first round: ${(last / first).toFixed(2)}; leaks found: ${leaks}`);
  if (leaks) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
