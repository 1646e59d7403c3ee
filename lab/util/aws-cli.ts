import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { which } from './proc.js';

/**
 * Where an AWS CLI may be: Debian's awscli first, then PATH's. PATH alone is
 * not enough: a pyenv or pip shim earlier on it may be the CLI v1, which the
 * nightly script and its test are not written for.
 */
export function awsCliCandidates(): string[] {
  return ['/usr/bin/aws', '/usr/local/bin/aws', which('aws') ?? ''].filter(Boolean);
}

/** The first of `candidates` that is the AWS CLI v2 (`aws --version` says aws-cli/2.x), or undefined. */
export function findAwsCliV2(candidates: readonly string[] = awsCliCandidates()): string | undefined {
  for (const aws of candidates) {
    if (!existsSync(aws)) continue;
    try {
      const version = execFileSync(aws, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      if (/^aws-cli\/2\./.test(version)) return aws;
    } catch {
      // not runnable: the next candidate
    }
  }
  return undefined;
}
