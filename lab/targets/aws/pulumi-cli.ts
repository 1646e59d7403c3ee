import { constants, accessSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { UserError } from '../../errors.js';

/** The `pulumi` executable on PATH, if any. */
export function findPulumiCli(path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'pulumi');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The Automation API runs the Pulumi CLI; without it nothing can be created,
 * so say what to install before anything starts (exit 2).
 */
export function requirePulumiCli(what: string): string {
  const cli = findPulumiCli();
  if (cli) return cli;
  throw new UserError(
    `${what} needs the Pulumi CLI (\`pulumi\` on PATH), which is not installed here; nothing was created.\n` +
      '  Install it: curl -fsSL https://get.pulumi.com | sh  (or see https://www.pulumi.com/docs/install/),\n' +
      '  log in to a state backend (`pulumi login`, or `pulumi login s3://<bucket>`), provide AWS credentials,\n' +
      '  then run the command again. The local target (--target local) needs none of this.',
  );
}

/**
 * The state backend as messages name it: PULUMI_BACKEND_URL when set (the
 * nightly sets it), else the one `pulumi login` chose (not read here: that
 * would be one more call to a backend that may be the thing failing).
 */
export function pulumiBackendName(env: NodeJS.ProcessEnv = process.env): string {
  return env.PULUMI_BACKEND_URL || 'of `pulumi login`, see `pulumi whoami -v`';
}
