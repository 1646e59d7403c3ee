/**
 * Runs the Pulumi program the way `pulumi preview` / `pulumi up` runs it,
 * without the Pulumi CLI and without a cloud.
 *
 * The contract copied from pulumi/pulumi (sdk/nodejs/cmd/pulumi-language-nodejs
 * main.go, constructArguments/constructConfig/execRuntime; pkg/engine
 * project.go getPwdMain; @pulumi/pulumi cmd/run):
 *  - `main: infra/index.ts` in Pulumi.yaml becomes program directory infra/
 *    and entry point index.ts; the project root is the folder of Pulumi.yaml;
 *  - the host starts `node <runtime.options.nodeargs> <@pulumi/pulumi/cmd/run>
 *    --monitor … --organization … --project <name> --root-directory <root>
 *    --stack <stack> --pwd <program directory> [--dry-run] --parallel N <entry>`
 *    in the program directory, with the stack's config in PULUMI_CONFIG (JSON,
 *    keys as `<namespace>:config:<name>`, values as strings) and the names of
 *    secret keys in PULUMI_CONFIG_SECRET_KEYS;
 *  - cmd/run chdirs to --pwd and imports the entry point; its exports are the
 *    stack outputs. `--dry-run` is preview, its absence update.
 *
 * What differs: language-host-child.ts stands in for cmd/run, with
 * `pulumi.runtime.setMocks` (mock-cloud.ts) in place of the engine's gRPC
 * resource monitor: mocks cannot cross a process boundary, so the child
 * installs them before the program loads and writes what the program
 * declared and exported as JSON for the test to assert on.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import type { RecordedInvoke, RecordedResource } from './mock-cloud.ts';

export const PROJECT_ROOT = resolve(import.meta.dirname, '..', '..', '..');
const CHILD = join(import.meta.dirname, 'language-host-child.ts');

export interface ProgramRunOptions {
  stack: string;
  /** Stack config as `pulumi config set` stores it: `namespace:name` → string (objects as JSON text). */
  config: Record<string, string>;
  /** true: `pulumi preview` (and the preview `pulumi up` shows first); false: the update. */
  dryRun: boolean;
  /** Extra environment for the program (the operator's shell). */
  env?: Record<string, string>;
  /** The project folder (default: this repository). */
  root?: string;
  /** false: a CLI older than 3.153 (pulumi/pulumi#18595), which sends no root directory, so cmd/run gets no --root-directory. */
  sendsRootDirectory?: boolean;
}

export interface ProgramRun {
  ok: boolean;
  error?: string;
  cwd: string;
  rootDirectory: string;
  dryRun: boolean;
  stack: string;
  project: string;
  outputs: Record<string, unknown>;
  secretOutputs: string[];
  resources: RecordedResource[];
  invokes: RecordedInvoke[];
  /** The command line the child ran (node arguments after the executable). */
  argv: string[];
}

interface ProjectFile {
  name: string;
  main?: string;
  runtime: { name: string; options?: { nodeargs?: string } };
}

/** getPwdMain: the program directory and the entry point Pulumi derives from `main`. */
export function programLocation(root: string, main: string | undefined): { pwd: string; entry: string } {
  if (!main) return { pwd: root, entry: '.' };
  const path = resolve(root, main);
  return statSync(path).isDirectory() ? { pwd: path, entry: '.' } : { pwd: dirname(path), entry: basename(path) };
}

/** constructConfig: `ns:name` becomes `ns:config:name` for older SDKs; @pulumi/pulumi strips it again. */
function languageHostConfig(config: Record<string, string>): string {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(config)) {
    const at = key.indexOf(':');
    if (at <= 0) throw new Error(`config key ${key} has no namespace`);
    out[`${key.slice(0, at)}:config:${key.slice(at + 1)}`] = value;
  }
  return JSON.stringify(out);
}

export async function runLikeLanguageHost(opts: ProgramRunOptions): Promise<ProgramRun> {
  const root = opts.root ?? PROJECT_ROOT;
  const project = parseYaml(readFileSync(join(root, 'Pulumi.yaml'), 'utf8')) as ProjectFile;
  const { pwd, entry } = programLocation(root, project.main);
  const nodeargs = (project.runtime.options?.nodeargs ?? '').split(/\s+/).filter(Boolean);
  const work = mkdtempSync(join(tmpdir(), 'layerlab-language-host-'));
  const out = join(work, 'run.json');
  const argv = [
    ...nodeargs,
    CHILD,
    '--monitor',
    'mock',
    '--organization',
    'organization',
    '--project',
    project.name,
    ...(opts.sendsRootDirectory === false ? [] : ['--root-directory', root]),
    '--stack',
    opts.stack,
    '--pwd',
    pwd,
    ...(opts.dryRun ? ['--dry-run'] : []),
    '--parallel',
    '16',
    entry,
  ];
  // Nothing of this test process leaks in: the host passes its own environment plus the config.
  const { NODE_OPTIONS: _n, PULUMI_CONFIG: _c, ...inherited } = process.env;
  try {
    await promisify(execFile)(process.execPath, argv, {
      cwd: pwd,
      env: {
        ...inherited,
        ...opts.env,
        PULUMI_CONFIG: languageHostConfig(opts.config),
        PULUMI_CONFIG_SECRET_KEYS: '[]',
        LAYERLAB_HARNESS_OUT: out,
      },
      timeout: 120_000,
    });
    return { ...(JSON.parse(readFileSync(out, 'utf8')) as Omit<ProgramRun, 'argv'>), argv };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
