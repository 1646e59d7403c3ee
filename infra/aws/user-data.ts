import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { OsRelease } from '../../lab/catalog.js';
import { PACKAGE_ROOT } from '../../lab/paths.js';
import { HOST_KEY_BEGIN, HOST_KEY_END } from '../../lab/targets/aws/console-host-key.js';
import { releasePackageFiles } from '../../lab/targets/local/image.js';

/*
 * No SSH host key travels in user data: user data is readable through the
 * instance metadata service by any process on the host and through the EC2
 * API by anyone with ec2:DescribeInstanceAttribute. Each host generates its
 * own ed25519 key at first boot and prints the public half to its serial
 * console between HOST_KEY_BEGIN/END; the controller reads it there with
 * GetConsoleOutput and pins it before its first SSH connection
 * (lab/targets/aws/console-host-key.ts).
 */

/**
 * The packages of the local guest image of `release` (every release's list
 * and the release's own): apt skips what the AMI already has.
 */
export function guestPackages(release: OsRelease): string[] {
  const files = [join(PACKAGE_ROOT, 'lab/targets/local/image/packages.txt'), ...releasePackageFiles(release)];
  return files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter(Boolean),
  );
}

/**
 * cloud-init for a Debian host of `release`: image keys deleted and one ed25519 host key
 * generated on the host, printed to the console (cloud-init's keys_to_console,
 * which writes HOST_KEY_BEGIN/END); root login with the lab's key (the guest
 * scripts run as root, as on the local target), the guest packages, and docker
 * stopped until a profile sets it up.
 */
export function debianCloudConfig(release: OsRelease): string {
  const config = {
    disable_root: false,
    ssh_deletekeys: true,
    ssh_genkeytypes: ['ed25519'],
    ssh: { emit_keys_to_console: true },
    package_update: true,
    packages: guestPackages(release),
    runcmd: [['systemctl', 'disable', '--now', 'docker.service', 'docker.socket']],
  };
  return `#cloud-config\n${stringify(config)}`;
}

export const IGNITION_VERSION = '3.3.0';

function dataUrl(text: string): string {
  return `data:text/plain;base64,${Buffer.from(text).toString('base64')}`;
}

/** Where the Flatcar host keeps the script that prints its host key. */
export const FLATCAR_HOST_KEY_SCRIPT = '/opt/layerlab/host-key-to-console';

/**
 * Flatcar has no cloud-init to print keys: this script makes the host keys
 * sshd would make (ssh-keygen -A only creates missing ones) and prints the
 * ed25519 public key between the same markers cloud-init uses.
 */
function flatcarHostKeyScript(): string {
  return [
    '#!/bin/bash',
    'set -euo pipefail',
    'ssh-keygen -A >/dev/null',
    '{',
    `  echo '${HOST_KEY_BEGIN}'`,
    '  cat /etc/ssh/ssh_host_ed25519_key.pub',
    `  echo '${HOST_KEY_END}'`,
    '} >/dev/console',
    '',
  ].join('\n');
}

const FLATCAR_HOST_KEY_UNIT = [
  '[Unit]',
  'Description=layerlab: print the SSH host key to the serial console for the controller to pin',
  // After Flatcar's own key generation, so that the two never race.
  'After=sshd-keygen.service',
  '[Service]',
  'Type=oneshot',
  'RemainAfterExit=yes',
  `ExecStart=${FLATCAR_HOST_KEY_SCRIPT}`,
  '[Install]',
  'WantedBy=multi-user.target',
  '',
].join('\n');

/** The login of a Flatcar host: Flatcar's own `core` user (passwordless sudo; guest scripts run through it). */
export const FLATCAR_USER = 'core';

/**
 * What only a local Flatcar VM adds to the shared Ignition config
 * (lab/targets/local/flatcar-boot.ts). On AWS neither may travel in user data
 * (see the top of this file); a local VM's config is a 0600 file of the
 * controller, read by QEMU alone, as the Debian guests' seed disk is.
 */
export interface FlatcarLocalExtras {
  /** /etc/hostname (a cloud host keeps the name its cloud gives it). */
  hostname: string;
  /** The host key pair the controller made and pins before the first connection. */
  hostKey: { private: string; public: string };
}

/** An Ignition file entry with inline contents; overwrite: the image may ship its own. */
function ignitionFile(path: string, mode: number, text: string) {
  return { path, mode, overwrite: true, contents: { source: dataUrl(text) } };
}

/** The host key and hostname files of a local Flatcar VM; sshd-keygen leaves an existing key alone. */
function localExtraFiles(extras: FlatcarLocalExtras) {
  return [
    ignitionFile('/etc/ssh/ssh_host_ed25519_key', 0o600, `${extras.hostKey.private.trim()}\n`),
    ignitionFile('/etc/ssh/ssh_host_ed25519_key.pub', 0o644, `${extras.hostKey.public.trim()}\n`),
    ignitionFile('/etc/hostname', 0o644, `${extras.hostname}\n`),
  ];
}

/**
 * Ignition (spec 3.3.0) for Flatcar: the `core` user gets the lab's key
 * (guest scripts run through sudo), a unit prints the host's own key to the
 * console, docker waits for the profile. The one generator for both targets:
 * the AWS program calls it with the key alone; the local target adds
 * `local` (host key and hostname, which the console unit then prints as is).
 */
export function flatcarIgnition(authorizedKey: string, local?: FlatcarLocalExtras): string {
  const config = {
    ignition: { version: IGNITION_VERSION },
    passwd: { users: [{ name: FLATCAR_USER, sshAuthorizedKeys: [authorizedKey.trim()] }] },
    storage: {
      files: [
        ignitionFile(FLATCAR_HOST_KEY_SCRIPT, 0o755, flatcarHostKeyScript()),
        ...(local ? localExtraFiles(local) : []),
      ],
    },
    systemd: {
      units: [
        // Both, as on Debian: an enabled socket would start docker on the first client, before the profile.
        { name: 'docker.service', enabled: false },
        { name: 'docker.socket', enabled: false },
        { name: 'layerlab-host-key.service', enabled: true, contents: FLATCAR_HOST_KEY_UNIT },
      ],
    },
  };
  return JSON.stringify(config);
}
