/**
 * infra/index.ts run as Pulumi's Node language host runs it (language-host.ts):
 * working directory infra/, stack config in PULUMI_CONFIG, project and stack
 * names, preview and update. Every documented way to start a lab.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AMI_SOURCES } from '../../../infra/aws/ami.ts';
import { parseLabDefinition } from '../../../lab/definition/load.ts';
import { comparisonKey } from '../../../lab/history/comparison-key.ts';
import { labStateDir } from '../../../lab/paths.ts';
import type { LoadedRun } from '../../../lab/record/load.ts';
import { awsStackConfig, inventoryFromStack } from '../../../lab/targets/aws/driver.ts';
import type { AwsStackInventory } from '../../../lab/targets/aws/stack-inventory.ts';
import { controllerOf } from '../../../lab/targets/controller.ts';
import { publicInventory } from '../../../lab/targets/types.ts';
import { PROJECT_ROOT, type ProgramRun, runLikeLanguageHost } from './language-host.ts';
import { MOCK_AMI_RELEASE } from './mock-cloud.ts';

const INSTANCE = 'aws:ec2/instance:Instance';

/**
 * The plain-Pulumi steps of the docs, as `pulumi config set` stores them (no
 * aws:region: the lab file states the region):
 *   pulumi stack init nightly
 *   pulumi config set layerlab:lab labs/aws-nightly.yaml
 *   pulumi config set --path 'layerlab:sshCidrs[0]' 203.0.113.7/32
 *   pulumi config set layerlab:expiresAt 2026-12-01T08:00:00Z
 *   pulumi preview
 *   pulumi up
 */
const PLAIN_PULUMI_CONFIG: Record<string, string> = {
  'layerlab:lab': 'labs/aws-nightly.yaml',
  'layerlab:sshCidrs': '["203.0.113.7/32"]',
  'layerlab:expiresAt': '2026-12-01T08:00:00Z',
};

function assertNightlyLab(run: ProgramRun): void {
  assert.equal(run.error, undefined);
  assert.equal(run.ok, true);
  assert.equal(run.cwd, join(PROJECT_ROOT, 'infra'), 'the program ran in main’s folder, as under the language host');
  const inventory = run.outputs.inventory as { target: string; lab: string; hosts: { name: string }[] };
  assert.equal(inventory.target, 'aws');
  assert.equal(inventory.lab, 'nightly');
  assert.deepEqual(
    inventory.hosts.map((h) => h.name),
    ['xfs', 'ext4', 'dm', 'btrfs', 'flatcar'],
  );
  assert.equal(run.resources.filter((r) => r.type === INSTANCE).length, 5);
  assert.deepEqual(run.secretOutputs, ['sshPrivateKey']);
  assertOneRegion(run, 'eu-central-1');
  assertAmiLabels(run);
}

/** Each host's inventory labels name the image its instance was created from (id, name, publisher). */
function assertAmiLabels(run: ProgramRun): void {
  const inventory = run.outputs.inventory as { hosts: { name: string; labels: Record<string, string> }[] };
  for (const host of inventory.hosts) {
    const image = host.name === 'flatcar' ? 'flatcar' : 'debian-12';
    const source = AMI_SOURCES[image];
    const instance = run.resources.find((r) => r.type === INSTANCE && r.name === `nightly-${host.name}`);
    assert.equal(host.labels.ami, instance?.inputs.ami, `${host.name}: the AMI its instance runs`);
    assert.equal(host.labels.ami, `ami-from-${source.owner}`, host.name);
    assert.equal(host.labels.amiName, source.namePattern.replace('*', MOCK_AMI_RELEASE), host.name);
    assert.equal(host.labels.amiOwner, source.owner, host.name);
    assert.equal(host.labels.image, image, host.name);
  }
}

/** One explicit AWS provider, in the lab's region, behind every AWS resource and lookup. */
function assertOneRegion(run: ProgramRun, region: string): void {
  const providers = run.resources.filter((r) => r.type === 'pulumi:providers:aws');
  assert.equal(providers.length, 1);
  assert.equal(providers[0]?.inputs.region, region);
  const ref = `${providers[0]?.urn}::`;
  const aws = run.resources.filter((r) => r.type.startsWith('aws:'));
  assert.ok(aws.length > 0, 'the program declares AWS resources');
  for (const r of aws) assert.ok(r.provider.startsWith(ref), `${r.type} ${r.name} uses provider "${r.provider}"`);
  const lookups = run.invokes.filter((i) => i.token.startsWith('aws:'));
  assert.ok(lookups.length > 0, 'the program looks up AMIs (and the default VPC) through AWS');
  for (const i of lookups) assert.ok(i.provider.startsWith(ref), `${i.token} uses provider "${i.provider}"`);
}

describe('infra/index.ts under the Node language host contract', () => {
  for (const dryRun of [true, false]) {
    const what = dryRun ? 'pulumi preview' : 'pulumi up';
    it(`${what}, stack nightly, layerlab:lab relative to the project (the README's steps)`, async () => {
      const run = await runLikeLanguageHost({ stack: 'nightly', config: PLAIN_PULUMI_CONFIG, dryRun });
      assert.equal(run.dryRun, dryRun);
      assertNightlyLab(run);
    });
  }

  it('pulumi up, any aws stack name, layerlab:lab absolute', async () => {
    const run = await runLikeLanguageHost({
      stack: 'perf-team-dev',
      config: { ...PLAIN_PULUMI_CONFIG, 'layerlab:lab': join(PROJECT_ROOT, 'labs/aws-nightly.yaml') },
      dryRun: false,
    });
    assertNightlyLab(run);
    const tags = run.resources.find((r) => r.type === INSTANCE)?.inputs.tags as Record<string, string>;
    assert.equal(tags['layerlab:run'], 'perf-team-dev', 'the run id defaults to the stack name');
  });

  for (const lab of ['labs/quick.yaml', join(PROJECT_ROOT, 'labs/quick.yaml')]) {
    it(`pulumi up -s local, layerlab:lab ${lab.startsWith('/') ? 'absolute' : 'relative'}`, async () => {
      const run = await runLikeLanguageHost({ stack: 'local', config: { 'layerlab:lab': lab }, dryRun: false });
      assert.equal(run.error, undefined);
      const local = run.resources.find((r) => r.type === 'pulumi-nodejs:dynamic:Resource');
      assert.equal(local?.name, 'quick');
      assert.equal(local?.inputs.labFile, join(PROJECT_ROOT, 'labs/quick.yaml'), 'the provider gets the absolute file');
      assert.equal(run.resources.filter((r) => r.type.startsWith('aws:')).length, 0);
    });
  }

  it('the Automation API path (layerlab up --target aws): the config the driver writes, stack named after the lab', async () => {
    const labFile = 'labs/aws-nightly.yaml';
    const lab = parseLabDefinition(readFileSync(labFile, 'utf8'), labFile);
    const config = awsStackConfig(labFile, ['203.0.113.7/32'], {}, controllerOf(lab.name, 'ci@runner', '/srv/ll'));
    assert.equal(config['aws:region'], undefined, 'the region comes from the lab file alone');
    assert.ok(config['layerlab:lab']?.value.startsWith('/'), 'the driver passes the lab file absolute');
    // `stack.up()` runs `pulumi up --yes --skip-preview` in the project root: one update, no preview.
    const run = await runLikeLanguageHost({
      stack: lab.name,
      config: Object.fromEntries(Object.entries(config).map(([k, v]) => [k, v.value])),
      dryRun: false,
    });
    assertNightlyLab(run);
    // Issue 35, N4: the stack names its controller in the backend (the inventory output) and on every EC2 resource.
    const inventory = run.outputs.inventory as { controller?: { who?: string; home?: string; since?: string } };
    assert.equal(inventory.controller?.who, 'ci@runner', 'the inventory output names the controller');
    assert.equal(inventory.controller?.home, '/srv/ll', 'and its LAYERLAB_HOME');
    assert.match(inventory.controller?.since ?? '', /^\d{4}-\d\d-\d\dT/, 'and since when');
    const tagged = run.resources.filter((r) => r.type.startsWith('aws:') && r.inputs.tags);
    assert.ok(tagged.length >= 5, `the instances at least carry tags (${tagged.length})`);
    const untagged = tagged.filter(
      (r) => !String((r.inputs.tags as Record<string, string>)['layerlab:controller']).startsWith('ci@runner /srv/ll'),
    );
    assert.deepEqual(
      untagged.map((r) => r.name),
      [],
      'every tagged resource names the controller',
    );
  });

  it('a Pulumi CLI older than 3.153 (no root directory sent): the folder of Pulumi.yaml above the program', async () => {
    const run = await runLikeLanguageHost({
      stack: 'nightly',
      config: PLAIN_PULUMI_CONFIG,
      dryRun: true,
      sendsRootDirectory: false,
    });
    assert.equal(run.rootDirectory, 'rootDirectory', "the SDK's placeholder when the host sends none");
    assertNightlyLab(run);
  });

  it("refuses a stack whose aws:region disagrees with the lab's, before creating anything", async () => {
    const run = await runLikeLanguageHost({
      stack: 'nightly',
      config: { ...PLAIN_PULUMI_CONFIG, 'aws:region': 'us-east-1' },
      dryRun: true,
    });
    assert.equal(run.ok, false);
    assert.match(
      String(run.error),
      /aws:region is us-east-1, but the lab definition .*aws-nightly\.yaml puts its hosts in eu-central-1 .*nothing was created.*pulumi config rm aws:region/,
    );
    assert.equal(run.resources.length, 0);
  });

  it("a stack whose aws:region names the lab's region is accepted", async () => {
    const run = await runLikeLanguageHost({
      stack: 'nightly',
      config: { ...PLAIN_PULUMI_CONFIG, 'aws:region': 'eu-central-1' },
      dryRun: true,
    });
    assertNightlyLab(run);
  });

  it("the operator's AWS_REGION does not move the hosts either", async () => {
    const run = await runLikeLanguageHost({
      stack: 'nightly',
      config: PLAIN_PULUMI_CONFIG,
      dryRun: false,
      env: { AWS_REGION: 'us-west-2', AWS_DEFAULT_REGION: 'us-west-2' },
    });
    assertNightlyLab(run);
  });

  it('the AMI each host runs reaches the run record and the history comparison key', async () => {
    const run = await runLikeLanguageHost({ stack: 'nightly', config: PLAIN_PULUMI_CONFIG, dryRun: false });
    assert.equal(run.error, undefined);
    const stackInventory = run.outputs.inventory as AwsStackInventory;
    const saved = process.env.LAYERLAB_HOME;
    const home = mkdtempSync(join(tmpdir(), 'layerlab-ami-'));
    process.env.LAYERLAB_HOME = home;
    try {
      // Host keys already pinned, so no console is read (that path has its own tests).
      const dir = join(labStateDir('nightly'), 'aws');
      mkdirSync(dir, { recursive: true });
      const pins = Object.fromEntries(stackInventory.hosts.map((h) => [h.instanceId, 'ssh-ed25519 AAAAC3Nz test']));
      writeFileSync(join(dir, 'host-keys.json'), JSON.stringify(pins));
      const inventory = await inventoryFromStack(
        'nightly',
        { inventory: { value: stackInventory }, sshPrivateKey: { value: String(run.outputs.sshPrivateKey) } },
        {
          readConsole: async () => assert.fail('no console read: the keys are pinned'),
          progress: () => {},
        },
      );
      // What startRun records in manifest.json (lab/phases/run.ts), and what history keys a night on.
      const recorded = { manifest: { inventory: publicInventory(inventory) }, env: new Map() } as unknown as LoadedRun;
      const key = comparisonKey(recorded);
      const flatcar = AMI_SOURCES.flatcar;
      assert.deepEqual(key.flatcar, {
        instanceType: 'm6i.xlarge',
        ami: `ami-from-${flatcar.owner}`,
        amiName: flatcar.namePattern.replace('*', MOCK_AMI_RELEASE),
        amiOwner: flatcar.owner,
        image: 'flatcar',
        volumeType: 'gp3',
        market: 'on-demand',
        region: 'eu-central-1',
      });
      assert.equal(key.xfs?.ami, `ami-from-${AMI_SOURCES['debian-12'].owner}`);
    } finally {
      if (saved === undefined) Reflect.deleteProperty(process.env, 'LAYERLAB_HOME');
      else process.env.LAYERLAB_HOME = saved;
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('says which file it could not read, resolved against the project root', async () => {
    const run = await runLikeLanguageHost({
      stack: 'nightly',
      config: { ...PLAIN_PULUMI_CONFIG, 'layerlab:lab': 'labs/no-such-lab.yaml' },
      dryRun: true,
    });
    assert.equal(run.ok, false);
    assert.match(String(run.error), /cannot read lab definition .*labs\/no-such-lab\.yaml/);
    assert.ok(String(run.error).includes(join(PROJECT_ROOT, 'labs/no-such-lab.yaml')), String(run.error));
    assert.equal(run.resources.length, 0);
  });
});
