/**
 * The child half of language-host.ts: what @pulumi/pulumi's cmd/run does with
 * the arguments the Node language host passes (cmd/run/index.js: flags into
 * PULUMI_NODEJS_* variables; cmd/run/run.js: chdir to --pwd, import the entry
 * point relative to it, the module's exports are the stack outputs), with the
 * mock cloud in place of the engine's gRPC monitor. Writes what the program
 * declared and exported as JSON to the file named by LAYERLAB_HARNESS_OUT.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface Flags {
  [name: string]: string | boolean | undefined;
}

/** `--name value` pairs and the boolean `--dry-run`, then the entry point (cmd/run's minimist, stopEarly). */
function parseFlags(args: string[]): { flags: Flags; entry: string } {
  const flags: Flags = {};
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (!arg.startsWith('--')) break;
    const name = arg.slice(2);
    if (name === 'dry-run') flags[name] = true;
    else flags[name] = args[++i];
  }
  const entry = args[i];
  if (!entry) throw new Error('language-host-child: missing program to execute');
  return { flags, entry };
}

const { flags, entry } = parseFlags(process.argv.slice(2));
const env: [string, string | boolean | undefined][] = [
  ['PULUMI_NODEJS_ORGANIZATION', flags.organization],
  ['PULUMI_NODEJS_PROJECT', flags.project],
  ['PULUMI_NODEJS_ROOT_DIRECTORY', flags['root-directory']],
  ['PULUMI_NODEJS_STACK', flags.stack],
  ['PULUMI_NODEJS_DRY_RUN', flags['dry-run']],
  ['PULUMI_NODEJS_PARALLEL', flags.parallel],
  ['PULUMI_NODEJS_MONITOR', flags.monitor],
];
for (const [key, value] of env) if (value) process.env[key] = `${value}`;
if (typeof flags.pwd === 'string') process.chdir(flags.pwd);

const out = process.env.LAYERLAB_HARNESS_OUT;
if (!out) throw new Error('language-host-child: LAYERLAB_HARNESS_OUT is not set');

// Loaded only now: @pulumi/pulumi reads PULUMI_NODEJS_* and PULUMI_CONFIG when its store is first made.
const pulumi = await import('@pulumi/pulumi');
const { installMockCloud, resolved, settle } = await import('./mock-cloud.ts');
const cloud = installMockCloud({
  project: String(flags.project),
  stack: String(flags.stack),
  dryRun: flags['dry-run'] === true,
  organization: typeof flags.organization === 'string' ? flags.organization : undefined,
});

const report: Record<string, unknown> = {
  cwd: process.cwd(),
  rootDirectory: pulumi.runtime.getRootDirectory(),
  dryRun: pulumi.runtime.isDryRun(),
  stack: pulumi.getStack(),
  project: pulumi.getProject(),
};
try {
  const program = (await import(pathToFileURL(join(process.cwd(), entry)).href)) as Record<string, unknown>;
  const outputs: Record<string, unknown> = {};
  const secretOutputs: string[] = [];
  for (const [name, value] of Object.entries(program)) {
    if (value === undefined) continue;
    if (pulumi.Output.isInstance(value)) {
      outputs[name] = await resolved(value);
      if (await pulumi.isSecret(value)) secretOutputs.push(name);
    } else outputs[name] = value;
  }
  await settle();
  Object.assign(report, { ok: true, outputs, secretOutputs });
} catch (err) {
  await settle();
  Object.assign(report, { ok: false, error: (err as Error).message });
}
writeFileSync(out, JSON.stringify({ ...report, resources: cloud.resources, invokes: cloud.invokes }));
// Pulumi's runtime keeps handles open (as under the real host, which ends the process itself).
process.exit(0);
