import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { allCommand } from './commands/all.js';
import { type CompareOptions, compareCommand } from './commands/compare-runs.js';
import { doctorCommand } from './commands/doctor.js';
import { downCommand } from './commands/down.js';
import {
  type HistoryPlotOptions,
  historyAcceptCommand,
  historyCommand,
  historyPlotCommand,
} from './commands/history.js';
import { parseCommand } from './commands/parse.js';
import { REPORT_FORMAT_HELP, reportCommand } from './commands/report.js';
import { runCommand } from './commands/run.js';
import { schemaCommand } from './commands/schema.js';
import { SEED_PARAMETERS_DOC, seedParametersCommand } from './commands/seed-parameters.js';
import { selftestCommand } from './commands/selftest.js';
import { type SweepOptions, sweep } from './commands/sweep.js';
import { upCommand } from './commands/up.js';
import { validateCommand } from './commands/validate.js';
import { InfraError, UserError, errorMessage } from './errors.js';
import { PACKAGE_ROOT } from './paths.js';
import { releaseAllLocks } from './util/lock.js';
import { printable } from './util/safe-text.js';

/**
 * How each command is used, at the end of its `--help` (schema and history
 * plot write their own, with more to say). test/unit/cli.test.ts checks that
 * every command has one.
 */
const EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  validate: ['layerlab validate labs/quick.yaml', 'layerlab validate --target aws labs/aws-nightly.yaml'],
  doctor: ['layerlab doctor --for lab', 'sudo layerlab doctor --install --for tests'],
  up: ['layerlab up --lab labs/quick.yaml', 'layerlab up --lab my-lab.yaml --inventory hosts.yaml'],
  run: ['layerlab run --lab labs/quick.yaml', 'layerlab run --lab labs/quick.yaml --resume 20261130-101500-quick-1a2b'],
  report: ['layerlab report', 'layerlab report 20261130-101500-quick-1a2b --format markdown,html,csv,json'],
  history: ['layerlab history --lab nightly'],
  'history accept': ['layerlab history accept 20261201-020100-nightly-0001'],
  compare: [
    'layerlab compare results/20261130-101500-quick-1a2b results/20261201-101500-quick-3c4d',
    'layerlab compare --baseline nights:3 --threshold 5% --lab nightly',
  ],
  down: ['layerlab down --lab labs/quick.yaml', 'layerlab down --name quick'],
  all: ['layerlab all --lab labs/quick.yaml', 'layerlab all --lab labs/aws-nightly.yaml --target aws --keep'],
  selftest: ['layerlab selftest --lab labs/quick.yaml'],
  sweep: ['layerlab sweep --dry-run', 'layerlab sweep --cloud --region eu-central-1'],
  parse: ['layerlab parse fio results/20261130-101500-quick-1a2b/trials/r1-xfs-fio-volume/fio.json'],
  // The page the repository keeps.
  'seed-parameters': [`layerlab seed-parameters > ${SEED_PARAMETERS_DOC}`],
};

/** Adds each command's examples (EXAMPLES, by "command subcommand") to its help, subcommands included. */
function addExamples(command: Command, path: string[] = []): void {
  for (const sub of command.commands) {
    const name = [...path, sub.name()];
    const lines = EXAMPLES[name.join(' ')];
    if (lines) {
      sub.addHelpText(
        'after',
        ['', lines.length > 1 ? 'Examples:' : 'Example:', ...lines.map((l) => `  ${l}`)].join('\n'),
      );
    }
    addExamples(sub, name);
  }
}

/** Where the hosts come from; the lab definition's target.kind unless overridden. */
function targetOptions(command: Command): Command {
  return command
    .option('--target <kind>', 'local | aws | static (default: target.kind of the lab definition)')
    .option('--inventory <file>', 'existing machines (hosts.yaml); implies --target static')
    .option('--stack <name>', 'aws: the Pulumi stack (default: the lab name)')
    .option('--ssh-cidr <cidr...>', 'aws: address(es) allowed to reach SSH, e.g. 203.0.113.7/32');
}

function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('check a lab definition; starts nothing')
    .argument('<file>', 'lab definition (YAML)')
    .option('--target <kind>', 'local | aws | static (default: target.kind of the lab definition)')
    .action(validateCommand);
}

function registerSchema(program: Command): void {
  program
    .command('schema')
    .description("print the lab definition's JSON Schema, for editors that complete and check lab files")
    .addHelpText(
      'after',
      [
        '',
        'Example:',
        '  layerlab schema > lab.schema.json',
        '',
        'A lab file names it in its first line, as those in labs/ do:',
        '  # yaml-language-server: $schema=../lab/definition/lab.schema.json',
      ].join('\n'),
    )
    .action(schemaCommand);
}

function registerSeedParameters(program: Command): void {
  program
    .command('seed-parameters')
    .description("print each seed's parameters beside labs/seeds.yaml's and labs/seeds-tcg.yaml's, as Markdown")
    .action(seedParametersCommand);
}

function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('list what the local target needs and how to install what is missing')
    .option('--install', 'install missing Debian packages with apt-get (root)')
    .option('--for <purpose>', 'lab: what the lab needs; tests: that and what npm test needs', 'lab')
    .action(doctorCommand);
}

function registerUp(program: Command): void {
  targetOptions(
    program
      .command('up')
      .description('create (or find) and prepare the hosts of a lab')
      .requiredOption('--lab <file>', 'lab definition')
      .option('--cold', 'local: boot and prepare every host, even where a prepared template could be restored'),
  ).action(upCommand);
}

function registerRun(program: Command): void {
  targetOptions(
    program
      .command('run')
      .description('run the trial matrix on a lab that is up, into results/<run-id>/')
      .requiredOption('--lab <file>', 'lab definition')
      .option('--resume <run>', 'continue an interrupted run (id or folder): done trials stay, the rest run'),
  ).action(runCommand);
}

function registerReport(program: Command): void {
  program
    .command('report')
    .description('write report.md of a run (default: the newest)')
    .argument('[run]', 'run id or run folder')
    .option('--format <names>', REPORT_FORMAT_HELP)
    .action(reportCommand);
}

function registerHistory(program: Command): void {
  const history = program
    .command('history')
    .description('list the runs recorded in results/history.sqlite')
    .option('--lab <name>', 'only runs of this lab')
    .enablePositionalOptions()
    .action(historyCommand);
  history
    .command('accept')
    .description('make a run the baseline of later nights (a deliberate change, not a regression)')
    .argument('<run>', 'run id')
    .action(async (run: string) => {
      await historyAcceptCommand(run);
    });
  history
    .command('plot')
    .description('draw each headline cell over the nights (trends.html, with trends.csv and trends.json beside it)')
    .option('--lab <name>', 'only this lab (default: every lab in the history)')
    .option('--cell <part>', 'only cells whose name contains this, e.g. xfs/volume (repeatable)', collect, [])
    .option('--last <n>', 'only the last n nights of each lab')
    .option('--out <dir>', 'where to write the three files (default: results/trends)')
    .addHelpText(
      'after',
      [
        '',
        'Example:',
        '  layerlab history plot --lab nightly --last 30 --cell xfs/volume --out results/trends',
        '',
        'A cell is named scenario/host/mount/series/metric (fio/xfs/volume/randread/read/bw).',
      ].join('\n'),
    )
    .action(async (opts: HistoryPlotOptions) => {
      await historyPlotCommand(opts);
    });
}

/** A repeatable option's values, in order. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function registerCompare(program: Command): void {
  program
    .command('compare')
    .description(
      'flag regressions: <old> <new> (two runs), or one run against the history (--baseline); exit 1 when there are any',
    )
    .argument('[runs...]', '<old> <new> run ids or folders; with --baseline, the new run (default: newest of --lab)')
    .option('--baseline <ref>', 'compare with the history: last | nights:N | a run id')
    .option('--lab <name>', 'with --baseline and no run: the newest run of this lab')
    .option('--threshold <percent>', 'count a worsening as a regression only beyond this, e.g. 5% (default 0%)')
    .option('--json', 'print the comparison as JSON instead of Markdown')
    .option('--benchmark-dir <dir>', "write the new run's headline metrics for github-action-benchmark there")
    .action(async (refs: string[], opts: CompareOptions) => {
      const outcome = await compareCommand(refs, opts);
      process.stdout.write(outcome.output);
      process.exitCode = outcome.exitCode;
    });
}

function registerDown(program: Command): void {
  targetOptions(
    program
      .command('down')
      .description('remove what layerlab created for a lab (local: VMs and disks; aws: the stack; static: its files)')
      .option('--lab <file>', 'lab definition')
      .option('--name <lab>', 'local lab name (when the definition file is gone)'),
  ).action(downCommand);
}

function registerAll(program: Command): void {
  targetOptions(
    program
      .command('all')
      .description('up, run, report and down; down always happens unless --keep')
      .requiredOption('--lab <file>', 'lab definition')
      .option('--keep', 'leave the lab up afterwards')
      .option('--cold', 'local: boot and prepare every host, even where a prepared template could be restored'),
  ).action(allCommand);
}

function registerSelftest(program: Command): void {
  targetOptions(
    program
      .command('selftest')
      .description("A/A check: the lab's first host twice, identical; how often do the verdicts claim a difference?")
      .requiredOption('--lab <file>', 'lab definition (its first host, scenarios, mounts and repetitions)')
      .option('--keep', 'leave the two hosts up afterwards'),
  ).action(selftestCommand);
}

function registerSweep(program: Command): void {
  program
    .command('sweep')
    .description(
      'remove leftovers: local labs whose owner died or whose VMs are dead, stale guest images, tool images and VM templates; cloud stacks and EC2 labs (found by tags) past their expiry',
    )
    .option('--dry-run', 'list what would be removed; remove nothing')
    .option('--local', 'only local labs (and templates)')
    .option('--templates', 'also remove every prepared VM template (the next `up` boots and prepares)')
    .option('--cloud', 'only the cloud: expired Pulumi stacks, and expired labs found in EC2 by their tags')
    .option('--target <kind>', 'aws: same as --cloud; local: same as --local')
    .option('--region <region>', 'where to look for tagged EC2 resources (default AWS_REGION)')
    .action(async (opts: SweepOptions) => {
      if ((await sweep(opts)) > 0) process.exitCode = 1;
    });
}

function registerParse(program: Command): void {
  program
    .command('parse')
    .description('print the samples of one raw output file as NDJSON')
    .argument('<scenario>', 'scenario name (e.g. fio)')
    .argument('<raw-file>', 'raw output (e.g. fio.json)')
    .action(async (scenario: string, file: string) => {
      process.exitCode = await parseCommand(scenario, file);
    });
}

/** The commands in the order `layerlab --help` lists them. */
const COMMANDS: readonly ((program: Command) => void)[] = [
  registerValidate,
  registerSchema,
  registerSeedParameters,
  registerDoctor,
  registerUp,
  registerRun,
  registerReport,
  registerHistory,
  registerCompare,
  registerDown,
  registerAll,
  registerSelftest,
  registerSweep,
  registerParse,
];

/** The version people report in bugs: package.json's, read where the CLI runs from. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

export function buildProgram(): Command {
  const program = new Command('layerlab')
    .description('Repeatable, honest Docker storage benchmarks')
    .version(packageVersion(), '-V, --version', 'print the version and exit')
    .showHelpAfterError()
    // Options belong to the command they follow (`history plot --lab x` is plot's --lab, not history's).
    .enablePositionalOptions()
    .exitOverride();
  for (const register of COMMANDS) register(program);
  addExamples(program);
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
    if (err instanceof InfraError) {
      process.stderr.write(`layerlab: ${printable(err.message)}\n`);
      return 3;
    }
    // Messages can carry text that came from a host: no escape sequence reaches the terminal.
    process.stderr.write(`layerlab: ${printable(errorMessage(err))}\n`);
    return 1;
  } finally {
    releaseAllLocks();
  }
}
