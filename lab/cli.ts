import { basename } from 'node:path';
import { Command, CommanderError } from 'commander';
import { downLab, upRunDown } from './commands/all.js';
import { compareRuns, formatDeltas } from './commands/compare-runs.js';
import {
  type LabCliOptions,
  type LoadedLab,
  checkCliName,
  checkRunRef,
  downHint,
  lockLab,
  requireLab,
} from './commands/context.js';
import { installMissing, printChecks, runChecks } from './commands/doctor.js';
import { parseCommand } from './commands/parse.js';
import { report } from './commands/report.js';
import { resumeRun, run } from './commands/run.js';
import { aaLab, writeSelftest } from './commands/selftest.js';
import { type SweepOptions, sweep } from './commands/sweep.js';
import { up } from './commands/up.js';
import { loadLabDefinition } from './definition/load.js';
import { UserError, errorMessage } from './errors.js';
import { History } from './history/history.js';
import { resultsRoot } from './paths.js';
import { makePlan } from './plan/plan.js';
import { resolveRunDir } from './record/layout.js';
import { say } from './run/progress.js';
import { localDown } from './targets/local/local.js';
import { labStateDir } from './targets/local/state.js';
import { releaseAllLocks } from './util/lock.js';
import { printable } from './util/safe-text.js';

/**
 * Ctrl-C / SIGTERM: the first asks the run to stop after the current trial
 * (and `all` still tears down); the second exits at once and says what may be left.
 */
function installInterruptHandler(loaded: LoadedLab): AbortController {
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (!controller.signal.aborted) {
      say(`${sig}: stopping after the current step; tearing down (press Ctrl-C again to exit now)`);
      controller.abort(new Error(sig));
      return;
    }
    say(
      `${sig} again: exiting now. Finished trials are kept; \`layerlab run --resume <run-id> --lab <file>\` continues the run. Hosts of lab ${loaded.lab.name} may be left (state in ${labStateDir(loaded.lab.name)}); remove them with \`${downHint(loaded)}\``,
    );
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return controller;
}

/** Where the hosts come from; the lab definition's target.kind unless overridden. */
function targetOptions(command: Command): Command {
  return command
    .option('--target <kind>', 'local | aws | static (default: target.kind of the lab definition)')
    .option('--inventory <file>', 'existing machines (hosts.yaml); implies --target static')
    .option('--stack <name>', 'aws: the Pulumi stack (default: the lab name)')
    .option('--ssh-cidr <cidr...>', 'aws: address(es) allowed to reach SSH, e.g. 203.0.113.7/32');
}

export function buildProgram(): Command {
  const program = new Command('layerlab')
    .description('Repeatable, honest Docker storage benchmarks')
    .showHelpAfterError()
    .exitOverride();

  program
    .command('validate')
    .description('check a lab definition; starts nothing')
    .argument('<file>', 'lab definition (YAML)')
    .action(async (file: string) => {
      const lab = await loadLabDefinition(file);
      const plan = makePlan(lab);
      process.stdout.write(
        `ok: ${file}: lab ${lab.name}, ${lab.hosts.length} host(s), ${plan.trials.length} trials (${plan.mode})\n`,
      );
    });

  program
    .command('doctor')
    .description('list what the local target needs and how to install what is missing')
    .option('--install', 'install missing Debian packages with apt-get (root)')
    .action(async (opts: { install?: boolean }) => {
      let checks = runChecks();
      if (opts.install && (await installMissing(checks))) checks = runChecks();
      printChecks(checks);
      if (checks.some((c) => !c.ok && !c.optional)) process.exitCode = 2;
    });

  targetOptions(
    program
      .command('up')
      .description('create (or find) and prepare the hosts of a lab')
      .requiredOption('--lab <file>', 'lab definition'),
  ).action(async (opts: LabCliOptions) => {
    const { lab, file, targetOptions } = await requireLab(opts);
    await up(lab, file, targetOptions);
  });

  targetOptions(
    program
      .command('run')
      .description('run the trial matrix on a lab that is up, into results/<run-id>/')
      .requiredOption('--lab <file>', 'lab definition')
      .option('--resume <run>', 'continue an interrupted run (id or folder): done trials stay, the rest run'),
  ).action(async (opts: LabCliOptions & { resume?: string }) => {
    if (opts.resume !== undefined) checkRunRef('--resume', opts.resume);
    const loaded = await requireLab(opts);
    const { lab, file } = loaded;
    const controller = installInterruptHandler(loaded);
    const result = opts.resume
      ? await resumeRun(lab, opts.resume, controller.signal, loaded.targetOptions)
      : await run(lab, file, controller.signal, loaded.targetOptions);
    const path = await report(result.dir);
    process.stdout.write(`${path}\n`);
    if (result.summary.failed || result.summary.stoppedBy === 'interrupted') process.exitCode = 1;
  });

  program
    .command('report')
    .description('write report.md of a run (default: the newest)')
    .argument('[run]', 'run id or run folder')
    .action(async (ref?: string) => {
      if (ref !== undefined) checkRunRef('report <run>', ref);
      process.stdout.write(`${await report(resolveRunDir(ref))}\n`);
    });

  program
    .command('history')
    .description('list the runs recorded in results/history.sqlite')
    .option('--lab <name>', 'only runs of this lab')
    .action((opts: { lab?: string }) => {
      if (opts.lab !== undefined) checkCliName('--lab', opts.lab);
      const history = History.forResults(resultsRoot());
      try {
        const runs = history.runs(opts.lab);
        process.stdout.write('run | lab | git | trials done/failed | samples | wall | ended by\n');
        for (const r of runs) {
          const wall = r.wall_seconds === null ? '?' : `${Math.round(r.wall_seconds)} s`;
          process.stdout.write(
            `${r.run_id} | ${r.lab} | ${r.git_revision ?? '?'} | ${r.done ?? '?'}/${r.failed ?? '?'} | ${r.samples} | ${wall} | ${r.stopped_by ?? '?'}\n`,
          );
        }
        if (!runs.length) process.stdout.write('(no runs recorded yet)\n');
      } finally {
        history.close();
      }
    });

  program
    .command('compare')
    .description('flag regressions between two runs (exit 1 when there are any)')
    .argument('<old>', 'older run id or folder')
    .argument('<new>', 'newer run id or folder')
    .action((oldRef: string, newRef: string) => {
      checkRunRef('compare <old>', oldRef);
      checkRunRef('compare <new>', newRef);
      const oldDir = resolveRunDir(oldRef);
      const newDir = resolveRunDir(newRef);
      const deltas = compareRuns(oldDir, newDir);
      process.stdout.write(formatDeltas(basename(oldDir), basename(newDir), deltas));
      if (deltas.some((d) => d.kind === 'regression')) process.exitCode = 1;
    });

  targetOptions(
    program
      .command('down')
      .description('remove what layerlab created for a lab (local: VMs and disks; aws: the stack; static: its files)')
      .option('--lab <file>', 'lab definition')
      .option('--name <lab>', 'local lab name (when the definition file is gone)'),
  ).action(async (opts: LabCliOptions & { name?: string }) => {
    if (opts.name !== undefined && !opts.lab) {
      checkCliName('--name', opts.name);
      lockLab(opts.name);
      say(`tearing down local lab ${opts.name}`);
      for (const r of await localDown(opts.name)) say(`${r.host}: ${r.outcome}`);
      say(`lab ${opts.name} is down; its state directory is removed`);
      return;
    }
    await downLab(await requireLab(opts));
  });

  targetOptions(
    program
      .command('all')
      .description('up, run, report and down; down always happens unless --keep')
      .requiredOption('--lab <file>', 'lab definition')
      .option('--keep', 'leave the lab up afterwards'),
  ).action(async (opts: LabCliOptions & { keep?: boolean }) => {
    const loaded = await requireLab(opts);
    const controller = installInterruptHandler(loaded);
    const result = await upRunDown(loaded, { keep: opts.keep, signal: controller.signal });
    if (result.reportPath) process.stdout.write(`report: ${result.reportPath}\n`);
    if (result.failed) process.exitCode = 1;
  });

  targetOptions(
    program
      .command('selftest')
      .description("A/A check: the lab's first host twice, identical; how often do the verdicts claim a difference?")
      .requiredOption('--lab <file>', 'lab definition (its first host, scenarios, mounts and repetitions)')
      .option('--keep', 'leave the two hosts up afterwards'),
  ).action(async (opts: LabCliOptions & { keep?: boolean }) => {
    const loaded = await requireLab(opts);
    const aa = { ...loaded, lab: aaLab(loaded.lab) };
    lockLab(aa.lab.name);
    const controller = installInterruptHandler(aa);
    const result = await upRunDown(aa, { keep: opts.keep, signal: controller.signal });
    if (!result.runDir) {
      process.exitCode = 1;
      return;
    }
    const verdict = await writeSelftest(result.runDir);
    process.stdout.write(`${verdict.summary}\nselftest: ${verdict.path}\n`);
    if (result.failed || verdict.tooNoisy) process.exitCode = 1;
  });

  program
    .command('sweep')
    .description(
      'remove leftovers: local labs whose owner died or whose VMs are dead; cloud stacks past their expiry tag',
    )
    .option('--dry-run', 'list what would be removed; remove nothing')
    .option('--local', 'only local labs')
    .option('--cloud', 'only cloud stacks (needs the Pulumi CLI)')
    .action(async (opts: SweepOptions) => {
      if ((await sweep(opts)) > 0) process.exitCode = 1;
    });

  program
    .command('parse')
    .description('print the samples of one raw output file as NDJSON')
    .argument('<scenario>', 'scenario name (e.g. fio)')
    .argument('<raw-file>', 'raw output (e.g. fio.json)')
    .action(async (scenario: string, file: string) => {
      process.exitCode = await parseCommand(scenario, file);
    });

  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return Number(process.exitCode ?? 0);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Usage errors are bad input: exit 2 (help/version exit 0).
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof UserError) {
      process.stderr.write(`layerlab: ${printable(err.message)}\n`);
      return 2;
    }
    // Messages can carry text that came from a host: no escape sequence reaches the terminal.
    process.stderr.write(`layerlab: ${printable(errorMessage(err))}\n`);
    return 1;
  } finally {
    releaseAllLocks();
  }
}
