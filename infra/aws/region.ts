import type { LabDefinition } from '../../lab/definition/schema.js';

/**
 * The lab's region, stated once: in the lab file (`target.aws.region`). The
 * program creates its hosts there through an explicit provider, and the
 * controller reads consoles, pins host keys and reports the same region. A
 * stack whose `aws:region` names another region is refused before anything
 * is created: which one the operator meant cannot be guessed.
 */
export function labRegion(lab: LabDefinition, labFile: string | undefined, stackRegion: string | undefined): string {
  const region = lab.target.aws.region;
  if (stackRegion !== undefined && stackRegion !== '' && stackRegion !== region) {
    throw new Error(
      `stack config aws:region is ${stackRegion}, but the lab definition${labFile ? ` ${labFile}` : ''} puts its hosts in ${region} (target.aws.region); nothing was created. ` +
        `The lab file is the one place for the region: \`pulumi config rm aws:region\` (or set it to ${region}), or change target.aws.region.`,
    );
  }
  return region;
}
