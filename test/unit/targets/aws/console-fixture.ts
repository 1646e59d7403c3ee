/**
 * What an EC2 serial console shows of a host's SSH key, for the tests of the
 * console parser (console-host-key.test.ts) and of the controller that pins
 * the key from it (driver.test.ts).
 */
import { generateKeyPairSync } from 'node:crypto';

/**
 * A fresh ed25519 public-key line, built from node's own key (its 32 raw
 * bytes in SSH wire format): ssh2's generator makes a malformed public key
 * about once in 300 (see lab/targets/local/seed.ts), which made the tests that use it flaky.
 */
export function hostKeyLine(): string {
  const raw = Buffer.from(String(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x), 'base64url');
  const field = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64')}`;
}

/**
 * Modelled on a Debian 12 EC2 console (cloud-init 22.4): kernel and systemd
 * lines, cloud-init generating the key, then write-ssh-key-fingerprints piped
 * through `logger --stderr -t ec2` (hence the "<14>… ec2:" prefix) at the end
 * of the final stage, after apt. CRLF as the serial console writes it.
 */
export function debianConsole(key: string, opts: { complete?: boolean; extraKeys?: string[] } = {}): string {
  const [type, blob] = key.split(' ');
  const host = 'root@ip-10-213-1-23';
  const lines = [
    '[    0.000000] Linux version 6.1.0-28-cloud-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 (2024-11-22)',
    '[    0.000000] Command line: BOOT_IMAGE=/boot/vmlinuz-6.1.0-28-cloud-amd64 root=PARTUUID=6f0e3c3b-01 ro console=tty0 console=ttyS0,115200 earlyprintk=ttyS0,115200 consoleblank=0',
    '[    3.512113] systemd[1]: Detected virtualization amazon.',
    "[    6.120384] cloud-init[305]: Cloud-init v. 22.4.2 running 'init-local' at Tue, 01 Dec 2026 15:02:11 +0000. Up 6.08 seconds.",
    "[    8.331298] cloud-init[402]: Cloud-init v. 22.4.2 running 'init' at Tue, 01 Dec 2026 15:02:13 +0000. Up 8.29 seconds.",
    '[    8.402114] cloud-init[402]: ci-info: ++++++++++++++++++++++++++++++++++++++Net device info++++++++++++++++++++++++++++++++++++++',
    '[    8.402871] cloud-init[402]: ci-info: | ens5:  | True |  10.213.1.23 | 255.255.255.0 | global | 0a:1b:2c:3d:4e:5f |',
    '[    8.951530] cloud-init[402]: Generating public/private ed25519 key pair.',
    '[    8.952044] cloud-init[402]: Your identification has been saved in /etc/ssh/ssh_host_ed25519_key',
    '[    8.952377] cloud-init[402]: Your public key has been saved in /etc/ssh/ssh_host_ed25519_key.pub',
    '[    8.952702] cloud-init[402]: The key fingerprint is:',
    `[    8.953019] cloud-init[402]: SHA256:q4Zb0m3Zr8oJ0N7n6vWcV2kF1yXg5pQeR9sTuVwXyZA ${host}`,
    "[    9.803115] cloud-init[611]: Cloud-init v. 22.4.2 running 'modules:config' at Tue, 01 Dec 2026 15:02:15 +0000. Up 9.77 seconds.",
    '[   10.114903] cloud-init[611]: Get:1 http://deb.debian.org/debian bookworm InRelease [151 kB]',
    '[  188.470112] cloud-init[611]: Setting up docker.io (20.10.24+dfsg1-1+deb12u1) ...',
    "[  301.220987] cloud-init[845]: Cloud-init v. 22.4.2 running 'modules:final' at Tue, 01 Dec 2026 15:07:07 +0000. Up 301.18 seconds.",
    '<14>Dec  1 15:07:08 ec2: ',
    '<14>Dec  1 15:07:08 ec2: #############################################################',
    '<14>Dec  1 15:07:08 ec2: -----BEGIN SSH HOST KEY FINGERPRINTS-----',
    `<14>Dec  1 15:07:08 ec2: 256 SHA256:q4Zb0m3Zr8oJ0N7n6vWcV2kF1yXg5pQeR9sTuVwXyZA ${host} (ED25519)`,
    '<14>Dec  1 15:07:08 ec2: -----END SSH HOST KEY FINGERPRINTS-----',
    '<14>Dec  1 15:07:08 ec2: #############################################################',
    '<14>Dec  1 15:07:08 ec2: -----BEGIN SSH HOST KEY KEYS-----',
    ...(opts.extraKeys ?? []).map((k) => `<14>Dec  1 15:07:08 ec2: ${k} ${host}`),
    `<14>Dec  1 15:07:08 ec2: ${type} ${blob} ${host}`,
  ];
  if (opts.complete !== false) {
    lines.push(
      '<14>Dec  1 15:07:08 ec2: -----END SSH HOST KEY KEYS-----',
      '[  301.731556] cloud-init[845]: Cloud-init v. 22.4.2 finished at Tue, 01 Dec 2026 15:07:08 +0000. Datasource DataSourceEc2Local.  Up 301.72 seconds',
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** What the Flatcar unit prints (plain lines, no syslog prefix), amid kernel messages. */
export function flatcarConsole(key: string): string {
  return [
    '[   12.001] systemd[1]: Starting layerlab-host-key.service...',
    '-----BEGIN SSH HOST KEY KEYS-----',
    '[   12.050] random: crng init done',
    `${key} root@localhost`,
    '-----END SSH HOST KEY KEYS-----',
    '',
  ].join('\n');
}
