import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as pulumi from '@pulumi/pulumi';

/*
 * Pulumi's Node language host runs the program in the folder of `main`
 * (Pulumi.yaml: `main: infra/index.ts`, so infra/), not where the operator
 * typed `pulumi up`: it passes `--pwd <main's folder>` and
 * `--root-directory <folder of Pulumi.yaml>` to @pulumi/pulumi's cmd/run,
 * which chdirs to the first and keeps the second in
 * PULUMI_NODEJS_ROOT_DIRECTORY (pulumi/pulumi#10022, #20305). Paths in stack
 * config are written relative to the project, so they are resolved here.
 */

function holdsPulumiYaml(dir: string): boolean {
  return existsSync(join(dir, 'Pulumi.yaml')) || existsSync(join(dir, 'Pulumi.yml'));
}

/** The nearest folder at or above `start` that holds Pulumi.yaml. */
function findUp(start: string): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    if (holdsPulumiYaml(dir)) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The project root (the folder of Pulumi.yaml): the language host's answer,
 * or, where it gives none (mocks, an older CLI: the SDK then answers the
 * placeholder "rootDirectory"), the folder above this program's own file.
 */
export function projectRoot(): string {
  const fromHost = pulumi.runtime.getRootDirectory();
  if (fromHost && isAbsolute(fromHost) && holdsPulumiYaml(fromHost)) return fromHost;
  const here = dirname(fileURLToPath(import.meta.url));
  const found = findUp(here);
  if (!found) throw new Error(`no Pulumi.yaml in ${here} or any folder above it; run the program from its project`);
  return found;
}

/** A path from stack config, relative to the project root unless absolute. */
export function projectPath(path: string): string {
  return resolve(projectRoot(), path);
}
