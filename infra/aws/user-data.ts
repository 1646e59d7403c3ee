import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { PACKAGE_ROOT } from '../../lab/paths.js';

/** The host key the program generated; the inventory pins its public half. */
export interface HostKeyPair {
  privateOpenssh: string;
  publicOpenssh: string;
}

/**
 * The packages of the local guest image (one list for every Debian host):
 * apt skips what the AMI already has.
 */
export function guestPackages(): string[] {
  return readFileSync(join(PACKAGE_ROOT, 'lab/targets/local/image/packages.txt'), 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean);
}

/**
 * cloud-init for Debian 12: our host key instead of generated ones, root
 * login with the lab's key (the guest scripts run as root, as on the local
 * target), the guest packages, and docker stopped until a profile sets it up.
 */
export function debianCloudConfig(hostKey: HostKeyPair): string {
  const config = {
    disable_root: false,
    ssh_deletekeys: true,
    ssh_genkeytypes: [],
    ssh_keys: {
      ed25519_private: `${hostKey.privateOpenssh.trim()}\n`,
      ed25519_public: hostKey.publicOpenssh.trim(),
    },
    package_update: true,
    packages: guestPackages(),
    runcmd: [['systemctl', 'disable', '--now', 'docker.service', 'docker.socket']],
  };
  return `#cloud-config\n${stringify(config)}`;
}

export const IGNITION_VERSION = '3.3.0';

function dataUrl(text: string): string {
  return `data:text/plain;base64,${Buffer.from(text).toString('base64')}`;
}

/**
 * Ignition (spec 3.3.0) for Flatcar: the `core` user gets the lab's key
 * (guest scripts run through sudo), sshd gets our host key, docker waits
 * for the profile.
 */
export function flatcarIgnition(hostKey: HostKeyPair, authorizedKey: string): string {
  const config = {
    ignition: { version: IGNITION_VERSION },
    passwd: { users: [{ name: 'core', sshAuthorizedKeys: [authorizedKey.trim()] }] },
    storage: {
      files: [
        {
          path: '/etc/ssh/ssh_host_ed25519_key',
          mode: 0o600,
          overwrite: true,
          contents: { source: dataUrl(`${hostKey.privateOpenssh.trim()}\n`) },
        },
        {
          path: '/etc/ssh/ssh_host_ed25519_key.pub',
          mode: 0o644,
          overwrite: true,
          contents: { source: dataUrl(`${hostKey.publicOpenssh.trim()}\n`) },
        },
      ],
    },
    systemd: { units: [{ name: 'docker.service', enabled: false }] },
  };
  return JSON.stringify(config);
}
