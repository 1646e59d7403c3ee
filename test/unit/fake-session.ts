import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseTrialOutput } from '../../lab/collect/trial-output.ts';
import type { LabDefinition } from '../../lab/definition/schema.ts';
import { captureEnvFor } from '../../lab/phases/capture-env.ts';
import type { Plan } from '../../lab/plan/plan.ts';
import type { RunRecord } from '../../lab/record/record.ts';
import type { ScheduleInput } from '../../lab/run/scheduler.ts';
import type { ConnectHost, HostConnection } from '../../lab/ssh/connect.ts';
import type { HostSession, OpenSession } from '../../lab/ssh/session.ts';
import type { ExecResult } from '../../lab/ssh/transport.ts';
import { HOST_FACTS_SCRIPT } from '../../lab/targets/static/stack-check.ts';
import type { InventoryHost } from '../../lab/targets/types.ts';
import { shellQuote } from '../../lab/util/shell.ts';

/** Real fio output (4 jobs) that the real parser reads: the fake host returns it as a trial's raw output. */
const FIO_JSON = readFileSync(resolve(import.meta.dirname, '..', 'fixtures', 'fio', 'four-jobs.json'), 'utf8');

/**
 * What a fake host does when asked to run a trial:
 * - ok: the guest's folder as run-trial.sh sends it (fio.json, meta.json, MANIFEST);
 * - guest-fails: the same, with the scenario's exit status 1;
 * - bad-manifest: a file that is not what the guest's MANIFEST says;
 * - drop: the connection breaks mid-trial (probe fails), the host answers a reconnect;
 * - dies: the connection breaks and the host never answers again;
 * - enospc: the controller's disk is full while unpacking.
 */
export type Behaviour = 'ok' | 'guest-fails' | 'bad-manifest' | 'drop' | 'dies' | 'enospc';

/** Writes a trial folder as guest/run-trial.sh would, with a MANIFEST of sha256, size and path. */
export function writeGuestFolder(dir: string, files: Record<string, string>, lie = false): void {
  mkdirSync(dir, { recursive: true });
  const lines: string[] = [];
  for (const [path, text] of Object.entries(files)) {
    writeFileSync(join(dir, path), text);
    const listed = lie ? `${text} (edited)` : text;
    lines.push(`${createHash('sha256').update(listed).digest('hex')} ${Buffer.byteLength(listed)} ${path}`);
  }
  writeFileSync(join(dir, 'MANIFEST'), `${lines.join('\n')}\n`);
}

function meta(status: number): string {
  return JSON.stringify({
    start: '100.0',
    end: '102.5',
    exit_status: String(status),
    loadavg_before: '0.10 0.1 0.1 1/100 1',
    loadavg_after: '0.20 0.1 0.1 1/100 1',
    steal_ticks_before: '0',
    steal_ticks_after: '0',
    clk_tck: '100',
  });
}

/** Everything every fake host saw, in order: "<host> <what> <trial>". */
export class FakeWorld {
  readonly events: string[] = [];
  /** Behaviour of a trial's first attempt (default ok); later attempts are ok unless the host is dead. */
  readonly behaviours = new Map<string, Behaviour>();
  readonly dead = new Set<string>();
  readonly openedWithin: number[] = [];
  private readonly attempts = new Map<string, number>();

  /** The trial id in a run-trial command (LL_TRIAL=...). */
  private static trialOf(command: string): string {
    return /LL_TRIAL='?([^' ]+)'?/.exec(command)?.[1] ?? '?';
  }

  open: OpenSession = async (host, deadline) => {
    this.openedWithin.push(deadline - Date.now());
    this.events.push(`${host.name} open`);
    return this.session(host);
  };

  private session(host: InventoryHost): HostSession {
    let connected = true;
    const world = this;
    return {
      name: host.name,
      async exec(command) {
        if (!connected) throw new Error('not connected');
        world.events.push(`${host.name} exec ${command.split('\n')[0]}`);
      },
      async push(_local, remote) {
        world.events.push(`${host.name} push ${remote}`);
      },
      async pull(command, localDir) {
        if (!connected) throw new Error(`no connection to ${host.name}`);
        if (command.includes('env.sh')) {
          writeGuestFolder(localDir, { 'summary.json': JSON.stringify({ cpus: '2', kernel: '6.1' }) });
          world.events.push(`${host.name} env`);
          return;
        }
        const trial = FakeWorld.trialOf(command);
        const n = (world.attempts.get(trial) ?? 0) + 1;
        world.attempts.set(trial, n);
        const behaviour = n === 1 ? (world.behaviours.get(trial) ?? 'ok') : 'ok';
        world.events.push(`${host.name} trial ${trial}${n > 1 ? ' again' : ''}`);
        if (behaviour === 'drop' || behaviour === 'dies') {
          connected = false;
          if (behaviour === 'dies') world.dead.add(host.name);
          throw new Error(`channel closed while running ${trial}`);
        }
        if (behaviour === 'enospc') {
          const err: NodeJS.ErrnoException = new Error('ENOSPC: no space left on device, write');
          err.code = 'ENOSPC';
          throw err;
        }
        const files = { 'fio.json': FIO_JSON, 'meta.json': meta(behaviour === 'guest-fails' ? 1 : 0) };
        writeGuestFolder(localDir, files, behaviour === 'bad-manifest');
      },
      async probe() {
        return connected;
      },
      async reconnect() {
        world.events.push(`${host.name} reconnect`);
        if (world.dead.has(host.name)) throw new Error('connection refused');
        connected = true;
      },
      async close() {
        world.events.push(`${host.name} close`);
      },
    };
  }
}

/** Inventory hosts for a lab's host names (the fake never reads keys or addresses). */
export function fakeHosts(lab: LabDefinition): InventoryHost[] {
  return lab.hosts.map((h, i) => ({
    name: h.name,
    profile: h.profile,
    address: '127.0.0.1',
    port: 10_000 + i,
    user: 'root',
    privateKeyPath: '/nonexistent',
    hostKey: 'ssh-ed25519 AAAA',
    dataDisk: '/dev/vdb',
    labels: {},
  }));
}

/** The scheduler's input for a run of `lab` on fake hosts: the real record, collection and parser. */
export function fakeRunInput(
  world: FakeWorld,
  record: RunRecord,
  lab: LabDefinition,
  plan: Plan,
  messages: string[],
): ScheduleInput {
  return {
    record,
    lab,
    hosts: fakeHosts(lab),
    plan,
    settings: {
      env: (trial) => ({ LL_TRIAL: trial.id }),
      timeoutMs: () => 60_000,
      parse: (dir, trial) => parseTrialOutput(dir, trial, record.runId),
      reconnectMs: 1000,
      say: (m) => messages.push(m),
    },
    openSession: world.open,
    setUp: (session, host) => captureEnvFor(session, host, record.newEnvDir(host.name)),
    expectedSeconds: () => 1,
  };
}

const GUEST_LIB = readFileSync(resolve(import.meta.dirname, '..', '..', 'guest', 'lib.sh'), 'utf8');

/**
 * Machines of the static target for its driver (lab/targets/static/driver.ts),
 * one folder each. What a controller sends them:
 * - the facts script: a Debian 12 machine with Docker 27;
 * - guest/check-host.sh: passes;
 * - guest/host-lock.sh: runs for real in bash, with lib.sh's LL_STATE (the
 *   machine's /var/lib/layerlab) pointed into the machine's folder;
 * - everything else (pushes, cleanup.sh): recorded in `events`, never run.
 * Not root, the lock's ll_safe_dir cannot ask for root's folders: it then
 * checks only what a user can (no symbolic link, a folder, made 0700).
 */
export class FakeStaticMachines {
  /** "<host> <what>", in order. */
  readonly events: string[] = [];
  /** Called before each lock action runs: a test may act as another controller just then. */
  beforeLock: (host: string, action: string) => void = () => {};

  constructor(readonly root: string) {}

  /** The machine's /var/lib/layerlab. */
  stateDir(host: string): string {
    return join(this.root, host, 'var', 'lib', 'layerlab');
  }

  connect: ConnectHost = async (host) => {
    mkdirSync(join(this.root, host.name, 'var', 'lib'), { recursive: true });
    this.events.push(`${host.name} open`);
    return this.connection(host);
  };

  private runLockScript(host: string, command: string, body: string): ExecResult {
    const notRoot =
      process.getuid?.() === 0
        ? ''
        : 'll_safe_dir() { local d; for d in "$@"; do [ ! -L "$d" ] || ll_die "$d is a symbolic link"; [ -d "$d" ] || mkdir -m 0700 -- "$d"; done; }\n';
    const script = `${GUEST_LIB}\nLL_STATE=${shellQuote(this.stateDir(host))}\n${notRoot}${body}`;
    const r = spawnSync('bash', ['-c', command], { input: script, encoding: 'utf8' });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  private connection(host: InventoryHost): HostConnection {
    const machines = this;
    const exec = async (command: string, options: { stdin?: unknown } = {}): Promise<ExecResult> => {
      const stdin = typeof options.stdin === 'string' ? options.stdin : '';
      if (stdin === HOST_FACTS_SCRIPT) {
        machines.events.push(`${host.name} facts`);
        return { code: 0, stdout: 'id=debian\nversion_id=12\npretty=Debian 12\ndocker=27.5.1\npodman=\n', stderr: '' };
      }
      const body = stdin.startsWith(GUEST_LIB) ? stdin.slice(GUEST_LIB.length) : '';
      if (body.includes('LL_LOCK_ACTION')) {
        const action = /LL_LOCK_ACTION='(\w+)'/.exec(command)?.[1] ?? '?';
        machines.beforeLock(host.name, action);
        const result = machines.runLockScript(host.name, command, body);
        machines.events.push(`${host.name} lock ${action} ${result.code}`);
        return result;
      }
      if (body.includes('ll_may_change_host')) {
        machines.events.push(`${host.name} check-host`);
        return { code: 0, stdout: '', stderr: '' };
      }
      machines.events.push(
        `${host.name} exec ${command.includes('cleanup.sh') ? 'cleanup.sh' : command.split('\n')[0]}`,
      );
      return { code: 0, stdout: '', stderr: '' };
    };
    return {
      endpoint: { ...host, privateKey: '' },
      exec,
      async run(command, options) {
        const result = await exec(command, options);
        if (result.code !== 0) throw new Error(`command failed (exit ${result.code}): ${result.stderr}`);
        return result;
      },
      async pushDir(_local, remote) {
        machines.events.push(`${host.name} push ${remote}`);
      },
      async pullCommand() {
        throw new Error('a static machine is not asked for output here');
      },
      close() {
        machines.events.push(`${host.name} close`);
      },
    };
  }
}
