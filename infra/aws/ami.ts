import * as aws from '@pulumi/aws';
import type * as pulumi from '@pulumi/pulumi';
import type { BaseImage } from '../../lab/catalog.js';

export interface AmiSource {
  /** AWS account that publishes the image. */
  owner: string;
  /** Name pattern of the current release. */
  namePattern: string;
  /** Login user the image's first-boot configuration sets up for us. */
  user: string;
}

/**
 * The official publishers: Debian's cloud team, one image per release (Debian
 * 12 ships docker.io 20.10, which still has devicemapper; Debian 13 docker.io
 * 26 and podman 5) and Flatcar's (Kinvolk/Microsoft).
 */
export const AMI_SOURCES: Record<BaseImage, AmiSource> = {
  'debian-12': { owner: '136693986130', namePattern: 'debian-12-amd64-*', user: 'root' },
  'debian-13': { owner: '136693986130', namePattern: 'debian-13-amd64-*', user: 'root' },
  flatcar: { owner: '075585003325', namePattern: 'Flatcar-stable-*-hvm', user: 'core' },
};

/** The image a lookup found: what `getAmi` answers (name and owner when AWS says them). */
export interface FoundAmi {
  id: string;
  name?: string;
  ownerId?: string;
}

export function lookupAmi(image: BaseImage, opts?: pulumi.InvokeOptions): pulumi.Output<FoundAmi> {
  const source = AMI_SOURCES[image];
  return aws.ec2
    .getAmiOutput(
      {
        mostRecent: true,
        owners: [source.owner],
        filters: [
          { name: 'name', values: [source.namePattern] },
          { name: 'architecture', values: ['x86_64'] },
          { name: 'virtualization-type', values: ['hvm'] },
        ],
      },
      opts,
    )
    .apply((ami) => ({
      id: ami.id,
      ...(ami.name ? { name: ami.name } : {}),
      ...(ami.ownerId ? { ownerId: ami.ownerId } : {}),
    }));
}

/**
 * The host labels that say which image a host runs (`ami`, `amiName`,
 * `amiOwner`; lab/history/comparison-key.ts compares them night to night).
 * `used` is the instance's own AMI: the lookup finds the newest image today,
 * the instance keeps the one it was created from, so the lookup's name and
 * owner are given only when they describe that same image.
 */
export function amiLabels(used: string, found: FoundAmi): Record<string, string> {
  if (found.id !== used) return { ami: used };
  return {
    ami: used,
    ...(found.name ? { amiName: found.name } : {}),
    ...(found.ownerId ? { amiOwner: found.ownerId } : {}),
  };
}
