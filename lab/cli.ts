import { basename } from 'node:path';
import { Command, CommanderError } from 'commander';
import { compareRuns, formatDeltas } from './commands/compare.js';
import { requireLab } from './commands/context.js';
import { installMissing, printChecks, runChecks } from './commands/doctor.js';
import { parseCommand } from './commands/parse.js';
import { report, resolveRunDir } from './commands/report.js';
import { run } from './commands/run.js';
import { up } from './commands/up.js';
import { loadLabDefinition } from './definition/load.js';
import { LabError, UserError, errorMessage } from './errors.js';
import { History } from './history/history.js';
import { resultsRoot } from './paths.js';
import { makePlan } from './plan/plan.js';
import { say } from './run/progress.js';
import { localDown } from './targets/local/local.js';
import { labStateDir } from './targets/local/state.js';

/**
 * Ctrl-C / SIGTERM: the first asks the run to stop after the current trial
 * (and `all` still tears down); the second exits at once and says what may be left.
 */
function installInterruptHandler(labName: string): AbortController {
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (!controller.signal.aborted) {
      say(`${sig}: stopping after the current step; tearing down (press Ctrl-C again to exit now)`);
      controller.abort(new Error(sig));
      return;
    }
    say(
      `${sig} again: exiting now. VMs or disks of lab ${labName} may be left in ${labStateDir(labName)}; remove them with \`layerlab down --name ${labName}\``,
    );
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return controller;
}

async function downLab(name: string): Promise<void> {
  say(`tearing down lab ${name}`);
  const reports = await localDown(name);
  for (const r of reports) say(`${r.host}: ${r.outcome}`);
  say(`lab ${name} is down; its state directory is removed`);
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

  program
    .command('up')
    .description('boot and prepare the hosts of a lab')
    .requiredOption('--lab <file>', 'lab definition')
    .action(async (opts: { lab: string }) => {
      const { lab, file } = await requireLab(opts.lab);
      await up(lab, file);
    });

  program
    .command('run')
    .description('run the trial matrix on a lab that is up, into results/<run-id>/')
    .requiredOption('--lab <file>', 'lab definition')
    .action(async (opts: { lab: string }) => {
      const { lab, file } = await requireLab(opts.lab);
      const controller = installInterruptHandler(lab.name);
      const result = await run(lab, file, controller.signal);
      const path = await report(result.dir);
      process.stdout.write(`${path}\n`);
      if (result.summary.failed || result.summary.stoppedBy === 'interrupted') process.exitCode = 1;
    });

  program
    .command('report')
    .description('write report.md of a run (default: the newest)')
    .argument('[run]', 'run id or run folder')
    .action(async (ref?: string) => {
      process.stdout.write(`${await report(resolveRunDir(ref))}\n`);
    });

  program
    .command('history')
    .description('list the runs recorded in results/history.sqlite')
    .option('--lab <name>', 'only runs of this lab')
    .action((opts: { lab?: string }) => {
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
      const oldDir = resolveRunDir(oldRef);
      const newDir = resolveRunDir(newRef);
      const deltas = compareRuns(oldDir, newDir);
      process.stdout.write(formatDeltas(basename(oldDir), basename(newDir), deltas));
      if (deltas.some((d) => d.kind === 'regression')) process.exitCode = 1;
    });

  program
    .command('down')
    .description('power off and delete every VM and disk of a lab')
    .option('--lab <file>', 'lab definition')
    .option('--name <lab>', 'lab name (when the definition file is gone)')
    .action(async (opts: { lab?: string; name?: string }) => {
      const name = opts.name ?? (await requireLab(opts.lab)).lab.name;
      await downLab(name);
    });

  program
    .command('all')
    .description('up, run, report and down; down always happens unless --keep')
    .requiredOption('--lab <file>', 'lab definition')
    .option('--keep', 'leave the lab up afterwards')
    .action(async (opts: { lab: string; keep?: boolean }) => {
      const { lab, file } = await requireLab(opts.lab);
      const controller = installInterruptHandler(lab.name);
      let reportPath: string | undefined;
      let failed = false;
      try {
        await up(lab, file);
        if (controller.signal.aborted) throw new LabError('interrupted before the run started');
        const result = await run(lab, file, controller.signal);
        reportPath = await report(result.dir);
        failed = result.summary.failed > 0 || result.summary.stoppedBy === 'interrupted';
      } finally {
        if (!opts.keep) {
          try {
            await downLab(lab.name);
          } catch (err) {
            say(`teardown failed: ${errorMessage(err)}; run \`layerlab down --name ${lab.name}\``);
            process.exitCode = 1;
          }
        } else say(`lab ${lab.name} left up (--keep); \`layerlab down --lab ${file}\` removes it`);
      }
      if (reportPath) process.stdout.write(`report: ${reportPath}\n`);
      if (failed) process.exitCode = 1;
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
      process.stderr.write(`layerlab: ${err.message}\n`);
      return 2;
    }
    process.stderr.write(`layerlab: ${errorMessage(err)}\n`);
    return 1;
  }
}
