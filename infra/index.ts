/**
 * The Pulumi program (Pulumi.yaml: main). Reads the lab definition named in
 * stack config and creates its hosts; exports the inventory and nothing else.
 *   stack `local` (or layerlab:target local): QEMU VMs on this machine
 *   any other stack with target aws: EC2 instances (infra/aws)
 */
import type * as pulumi from '@pulumi/pulumi';
import { loadLabDefinition } from '../lab/definition/load.js';
import { awsLab } from './aws/program.js';
import { readOperatorConfig } from './config.js';
import { LocalLab } from './local/provider.js';

const operator = readOperatorConfig();
const lab = await loadLabDefinition(operator.labFile, { target: operator.target });

function program(): { inventory: pulumi.Output<unknown>; sshPrivateKey?: pulumi.Output<string> } {
  switch (lab.target.kind) {
    case 'aws':
      return awsLab({
        lab,
        labFile: operator.labFile,
        tags: { ...operator.tags, lab: lab.name },
        controller: operator.controller,
        sshCidrs: operator.sshCidrs,
        allowOpenSsh: operator.allowOpenSsh,
        stackRegion: operator.stackRegion,
      });
    case 'local':
      return { inventory: new LocalLab(lab.name, { labFile: operator.labFile, labName: lab.name }).inventory };
    case 'static':
      throw new Error('target static has no Pulumi program: its machines exist already (use layerlab --inventory)');
  }
}

const created = program();
export const inventory = created.inventory;
export const sshPrivateKey = created.sshPrivateKey;
