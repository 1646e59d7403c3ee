/**
 * infra/aws/iam-policy.json against the code: the cloud calls are found in
 * the source (Pulumi resource types and data sources in infra/, AWS SDK
 * commands in lab/ and infra/, `aws` CLI commands in scripts/ and the
 * workflows), mapped to IAM actions through infra/aws/iam-actions.ts, and
 * the policy must allow exactly those, tied to the lab's tags where AWS can.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import {
  CLI_COMMAND_ACTIONS,
  PULUMI_S3_BACKEND_ACTIONS,
  PULUMI_TYPE_ACTIONS,
  SDK_COMMAND_ACTIONS,
  SDK_PACKAGE_PREFIX,
} from '../../../../infra/aws/iam-actions.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..', '..');
const POLICY_FILE = join(ROOT, 'infra', 'aws', 'iam-policy.json');
const BUCKET = 'REPLACE-WITH-STATE-BUCKET';

interface Statement {
  Sid: string;
  Effect: string;
  Action: string[];
  Resource: string | string[];
  Condition?: Record<string, Record<string, unknown>>;
}
interface Policy {
  Version: string;
  Statement: Statement[];
}

const policy = JSON.parse(readFileSync(POLICY_FILE, 'utf8')) as Policy;

function filesUnder(dir: string, suffixes: readonly string[]): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules') return [];
    if (statSync(path).isDirectory()) return filesUnder(path, suffixes);
    return suffixes.some((s) => name.endsWith(s)) ? [path] : [];
  });
}

/** A call found in the code, and where. */
interface Found {
  call: string;
  where: string;
}

function rel(path: string): string {
  return relative(ROOT, path);
}

/** `new aws.ec2.Instance(`, `aws.ec2.getAmiOutput(`, `new aws.Provider(` in infra/. */
function pulumiTypesUsed(): { found: Found[]; unscannable: string[] } {
  const found: Found[] = [];
  const unscannable: string[] = [];
  for (const file of filesUnder(join(ROOT, 'infra'), ['.ts'])) {
    const text = readFileSync(file, 'utf8');
    if (!text.includes("'@pulumi/aws'")) continue;
    // Only the namespace import can be scanned: `import { ec2 } from '@pulumi/aws'` would hide calls.
    if (!/import (type )?\* as aws from '@pulumi\/aws';/.test(text)) unscannable.push(rel(file));
    for (const m of text.matchAll(/\bnew\s+aws\s*\.\s*(?:([a-z0-9]+)\s*\.\s*)?([A-Z]\w*)\s*\(/g)) {
      found.push({ call: `aws.${m[1] ? `${m[1]}.` : ''}${m[2]}`, where: rel(file) });
    }
    for (const m of text.matchAll(/\baws\s*\.\s*(?:([a-z0-9]+)\s*\.\s*)?(get[A-Z]\w*?)(?:Output)?\s*\(/g)) {
      found.push({ call: `aws.${m[1] ? `${m[1]}.` : ''}${m[2]}`, where: rel(file) });
    }
  }
  return { found, unscannable };
}

/** SDK commands (`GetConsoleOutputCommand`, `paginateDescribeInstances`) in files that use an AWS SDK client. */
async function sdkCallsUsed(): Promise<{ found: Found[]; unknownPackages: string[] }> {
  const found: Found[] = [];
  const unknownPackages: string[] = [];
  const files = [...filesUnder(join(ROOT, 'lab'), ['.ts']), ...filesUnder(join(ROOT, 'infra'), ['.ts'])];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    // Imports only (static, dynamic, `typeof import(...)`): a package named in a comment or a table calls nothing.
    const imports = text.matchAll(/\b(?:from\s+|import\s*\(\s*)['"](@aws-sdk\/client-[a-z0-9-]+)['"]/g);
    const packages = [...new Set([...imports].map((m) => m[1] as string))];
    for (const pkg of packages) {
      const prefix = SDK_PACKAGE_PREFIX[pkg];
      if (!prefix) {
        unknownPackages.push(`${pkg} (${rel(file)})`);
        continue;
      }
      const sdk = (await import(pkg)) as Record<string, unknown>;
      const names = new Set([
        ...[...text.matchAll(/\b([A-Z][A-Za-z0-9]*)Command\b/g)].map((m) => m[1] as string),
        ...[...text.matchAll(/\bpaginate([A-Z][A-Za-z0-9]*)\b/g)].map((m) => m[1] as string),
      ]);
      for (const name of names) {
        if (typeof sdk[`${name}Command`] === 'function') found.push({ call: `${prefix}:${name}`, where: rel(file) });
      }
    }
  }
  return { found, unknownPackages };
}

/**
 * Services of the AWS CLI, to tell `aws s3 cp` from prose such as "local, aws
 * or static" in a message (a command from any of these needs a table entry).
 */
const AWS_CLI_SERVICES = new Set(
  's3 s3api ec2 sts iam ssm kms logs sns sqs ecr lambda dynamodb cloudwatch cloudformation secretsmanager resourcegroupstaggingapi pricing ebs autoscaling route53 configure'.split(
    ' ',
  ),
);

/** `aws <service> <command>` in scripts/*.sh and the workflows, comments left out. */
function cliCallsUsed(): { found: Found[]; unreadable: string[] } {
  const found: Found[] = [];
  const unreadable: string[] = [];
  const files = [
    ...filesUnder(join(ROOT, 'scripts'), ['.sh']),
    ...filesUnder(join(ROOT, '.github', 'workflows'), ['.yml', '.yaml']),
  ];
  for (const file of files) {
    const code = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('#'))
      .join('\n');
    for (const m of code.matchAll(/\baws\s+([a-z][a-z0-9-]*)\s+([^\s;|&)]+)/g)) {
      const [, service, command] = m as unknown as [string, string, string];
      if (!AWS_CLI_SERVICES.has(service)) continue;
      if (!/^[a-z0-9-]+$/.test(command)) unreadable.push(`${rel(file)}: aws ${service} ${command}`);
      else found.push({ call: `${service} ${command}`, where: rel(file) });
    }
  }
  return { found, unreadable };
}

/** Whether a workflow keeps the Pulumi state in S3 (the Pulumi CLI then calls S3 itself). */
function usesS3Backend(): boolean {
  return filesUnder(join(ROOT, '.github', 'workflows'), ['.yml', '.yaml']).some((f) =>
    /PULUMI_BACKEND_URL/.test(readFileSync(f, 'utf8')),
  );
}

interface Needed {
  actions: Map<string, string[]>;
  unmapped: string[];
  problems: string[];
}

function need(actions: Map<string, string[]>, action: string, why: string): void {
  actions.set(action, [...(actions.get(action) ?? []), why]);
}

/** Every action the code needs, with the calls that need it. */
async function neededActions(): Promise<Needed> {
  const actions = new Map<string, string[]>();
  const unmapped: string[] = [];
  const problems: string[] = [];
  const pulumi = pulumiTypesUsed();
  problems.push(...pulumi.unscannable.map((f) => `${f}: import @pulumi/aws as \`* as aws\` so its calls can be found`));
  for (const { call, where } of pulumi.found) {
    const mapped = PULUMI_TYPE_ACTIONS[call];
    if (!mapped) unmapped.push(`${call} (${where}): add it to PULUMI_TYPE_ACTIONS`);
    for (const a of mapped ?? []) need(actions, a, `${call} in ${where}`);
  }
  const sdk = await sdkCallsUsed();
  problems.push(...sdk.unknownPackages.map((p) => `${p}: add the package's IAM prefix to SDK_PACKAGE_PREFIX`));
  for (const { call, where } of sdk.found) {
    for (const a of SDK_COMMAND_ACTIONS[call] ?? [call]) need(actions, a, `${call} in ${where}`);
  }
  const cli = cliCallsUsed();
  problems.push(...cli.unreadable.map((c) => `${c}: not a literal aws command; the policy check cannot read it`));
  for (const { call, where } of cli.found) {
    const mapped = CLI_COMMAND_ACTIONS[call];
    if (!mapped) unmapped.push(`aws ${call} (${where}): add it to CLI_COMMAND_ACTIONS`);
    for (const a of mapped ?? []) need(actions, a, `aws ${call} in ${where}`);
  }
  if (usesS3Backend()) {
    for (const a of PULUMI_S3_BACKEND_ACTIONS) need(actions, a, 'the Pulumi CLI with an S3 state backend');
  }
  return { actions, unmapped, problems };
}

function allowedActions(p: Policy): Set<string> {
  return new Set(p.Statement.filter((s) => s.Effect === 'Allow').flatMap((s) => s.Action));
}

/** Actions the code needs that the policy does not allow, each with why it is needed. */
function missingFrom(p: Policy, needed: Map<string, string[]>): string[] {
  const allowed = allowedActions(p);
  return [...needed].filter(([a]) => !allowed.has(a)).map(([a, why]) => `${a} (for ${why.join(', ')})`);
}

function resources(s: Statement): string[] {
  return typeof s.Resource === 'string' ? [s.Resource] : s.Resource;
}

const needed = await neededActions();

describe('infra/aws/iam-policy.json: least privilege, derived from the code', () => {
  it('is an IAM policy document: version, one Sid per statement (letters and digits), explicit actions, within the size quota', () => {
    assert.equal(policy.Version, '2012-10-17');
    const sids = policy.Statement.map((s) => s.Sid);
    assert.equal(new Set(sids).size, sids.length, 'Sids are unique');
    for (const s of policy.Statement) {
      assert.match(s.Sid, /^[A-Za-z0-9]+$/, `${s.Sid}: IAM allows only letters and digits in a Sid`);
      assert.equal(s.Effect, 'Allow', s.Sid);
      assert.ok(Array.isArray(s.Action) && s.Action.length > 0, s.Sid);
      for (const a of s.Action)
        assert.match(a, /^[a-z0-9]+:[A-Za-z0-9]+$/, `${s.Sid}: ${a} is one action, no wildcard`);
      assert.ok(resources(s).length > 0, s.Sid);
    }
    // A managed policy holds at most 6,144 characters, whitespace not counted.
    assert.ok(JSON.stringify(policy).length <= 6144, `${JSON.stringify(policy).length} characters`);
  });

  it('finds the calls the code makes today (the derivation is not blind)', () => {
    for (const action of [
      'ec2:RunInstances', // aws.ec2.Instance in infra/aws/program.ts
      'ec2:DescribeImages', // aws.ec2.getAmi in infra/aws/ami.ts
      'ec2:CreateVpc', // aws.ec2.Vpc in infra/aws/network.ts
      'ec2:GetConsoleOutput', // GetConsoleOutputCommand in lab/targets/aws/ec2-console.ts
      's3:PutObject', // aws s3 cp in scripts/nightly.sh
    ]) {
      assert.ok(needed.actions.has(action), `${action} was not derived from the code`);
    }
  });

  it('every cloud call in the code has an entry in infra/aws/iam-actions.ts', () => {
    assert.deepEqual(needed.problems, []);
    assert.deepEqual(needed.unmapped, []);
  });

  it('allows every action the code needs', () => {
    assert.deepEqual(missingFrom(policy, needed.actions), []);
  });

  it('allows no action the code does not need', () => {
    const extra = [...allowedActions(policy)].filter((a) => !needed.actions.has(a));
    assert.deepEqual(extra, []);
  });

  it('would notice any one action removed from it', () => {
    for (const action of needed.actions.keys()) {
      const without: Policy = {
        ...policy,
        Statement: policy.Statement.map((s) => ({ ...s, Action: s.Action.filter((a) => a !== action) })),
      };
      const missing = missingFrom(without, needed.actions);
      assert.equal(missing.length, 1, action);
      assert.ok(missing[0]?.startsWith(`${action} (for `), missing[0]);
    }
  });

  it('changes and deletes only what carries the layerlab:lab tag; creates only with it', () => {
    const mutating =
      /^ec2:(Terminate|Stop|Start|Modify|Attach|Detach|Delete|Disassociate|Associate|Replace|Revoke|Authorize|Update|GetConsoleOutput|CreateRoute$)/;
    const creating = /^ec2:(RunInstances|Create(?!Tags|Route$)\w+|Import\w+)$/;
    for (const s of policy.Statement) {
      const condition = JSON.stringify(s.Condition ?? {});
      const untagged = /Untagged/.test(s.Sid);
      for (const a of s.Action.filter((x) => mutating.test(x))) {
        assert.ok(
          condition.includes('aws:ResourceTag/layerlab:lab') || untagged,
          `${s.Sid}: ${a} must be conditioned on aws:ResourceTag/layerlab:lab`,
        );
      }
      for (const a of s.Action.filter((x) => creating.test(x))) {
        assert.ok(
          condition.includes('aws:RequestTag/layerlab:lab') || condition.includes('ec2:Owner') || untagged,
          `${s.Sid}: ${a} must require the layerlab:lab tag in the request`,
        );
      }
      if (!s.Condition && s.Action.some((a) => a.startsWith('ec2:'))) {
        // Statements without a condition say why in their Sid, and hold no delete of any kind.
        assert.match(s.Sid, /CannotBeScoped|Untagged/, `${s.Sid} has no condition: its Sid must say why`);
        assert.ok(!s.Action.some((a) => /Delete|Terminate|Detach|Disassociate|Modify/.test(a)), s.Sid);
      }
    }
    const creates = policy.Statement.find((s) => s.Sid === 'CreateOnlyResourcesTaggedAsLab');
    for (const type of ['volume', 'key-pair', 'security-group', 'vpc', 'subnet', 'internet-gateway', 'route-table']) {
      assert.ok(creates && resources(creates).includes(`arn:aws:ec2:*:*:${type}/*`), `${type} is created tagged`);
    }
  });

  it('launches only images of the publishers infra/aws/ami.ts names', () => {
    const ami = readFileSync(join(ROOT, 'infra', 'aws', 'ami.ts'), 'utf8');
    const owners = [...new Set([...ami.matchAll(/owner: '(\d{12})'/g)].map((m) => m[1]))].sort();
    assert.ok(owners.length >= 2, `owners found in ami.ts: ${owners.join(', ')}`);
    const images = policy.Statement.filter(
      (s) => s.Action.includes('ec2:RunInstances') && resources(s).some((r) => r.includes(':image/')),
    );
    assert.equal(images.length, 1);
    const allowed = (images[0]?.Condition?.StringEquals?.['ec2:Owner'] as string[] | undefined) ?? [];
    assert.deepEqual([...allowed].sort(), owners);
  });

  it('S3: the nightly history under layerlab/, the Pulumi state under .pulumi/, of one bucket, nothing else', () => {
    const allows = (action: string, resource: string) =>
      policy.Statement.some((s) => s.Action.includes(action) && resources(s).includes(resource));
    for (const action of ['s3:GetObject', 's3:PutObject', 's3:DeleteObject']) {
      assert.ok(allows(action, `arn:aws:s3:::${BUCKET}/layerlab/*`), `${action} on the history prefix`);
    }
    for (const action of ['s3:GetObject', 's3:PutObject', 's3:DeleteObject']) {
      assert.ok(allows(action, `arn:aws:s3:::${BUCKET}/.pulumi/*`), `${action} on the Pulumi state prefix`);
    }
    assert.ok(allows('s3:ListBucket', `arn:aws:s3:::${BUCKET}`), 's3:ListBucket on the bucket');
    for (const s of policy.Statement.filter((x) => x.Action.some((a) => a.startsWith('s3:')))) {
      for (const r of resources(s)) assert.ok(r.startsWith(`arn:aws:s3:::${BUCKET}`), `${s.Sid}: ${r}`);
      // Deletes: the Pulumi state, and the nightly's superseded history generations (nightly-history.sh).
      const deletable = (r: string) => r.endsWith('/.pulumi/*') || r.endsWith('/layerlab/*');
      assert.ok(!s.Action.includes('s3:DeleteObject') || resources(s).every(deletable), s.Sid);
    }
  });
});
