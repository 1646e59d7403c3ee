import { constants, accessSync, existsSync, statfsSync } from 'node:fs';
import { mkdirSync } from 'node:fs';
import { UserError } from '../errors.js';
import { cacheRoot, stateRoot } from '../paths.js';
import { findVirtiofsd } from '../targets/local/hostshare.js';
import { NFS_TOOLS, findVfsPlugin } from '../targets/local/nfs-share.js';
import { listTemplates, templateCapBytes, templatesEnabled, templatesRoot } from '../targets/local/template-store.js';
import { aptSourceFiles } from '../util/apt-sources.js';
import { findAwsCliV2 } from '../util/aws-cli.js';
import { runLocal, which } from '../util/proc.js';
import { formatBytes } from '../util/size.js';

export interface Check {
  what: string;
  ok: boolean;
  detail: string;
  /** Debian package that fixes it, if any. */
  aptPackage?: string;
  fix?: string;
  /** Missing but not required (the lab still works). */
  optional?: boolean;
}

/** Something a purpose needs on this machine, and the Debian package that brings it. */
interface Need {
  what: string;
  pkg: string;
  why: string;
  /** Where it is on this machine, or undefined. */
  find: () => string | undefined;
}

const command = (cmd: string, pkg: string, why: string): Need => ({ what: cmd, pkg, why, find: () => which(cmd) });

/**
 * What each purpose needs, by Debian package: the one list per purpose.
 * `doctor --install` installs the lab's (the demo runs it); `doctor --install
 * --for tests` installs both (`npm test` runs it first, and so does .ci/run).
 */
export const NEEDS = {
  lab: [
    command('qemu-system-x86_64', 'qemu-system-x86', 'runs the local VMs'),
    command('qemu-img', 'qemu-utils', 'creates copy-on-write overlays of the guest image'),
    command('mmdebstrap', 'mmdebstrap', 'builds the guest and tool images from Debian packages'),
    command('mkfs.ext4', 'e2fsprogs', 'writes the guest root filesystem without a loop mount'),
    command('zstd', 'zstd', 'compresses tool images for upload'),
    command('tar', 'tar', 'packs guest files'),
  ],
  tests: [
    command(NFS_TOOLS.ganesha, 'nfs-ganesha', 'the hostshare-nfs tests start a real NFS server'),
    {
      what: 'nfs-ganesha VFS plugin',
      pkg: 'nfs-ganesha-vfs',
      why: 'the NFS server exports a folder through it',
      find: findVfsPlugin,
    },
    command(NFS_TOOLS.socat, 'socat', "carries the guests' NFS connection to the server on 127.0.0.1"),
    command('chromium', 'chromium', 'the report test renders report.html in a headless browser'),
    command('shellcheck', 'shellcheck', 'npm run lint checks the shell scripts'),
    {
      what: 'aws CLI v2',
      pkg: 'awscli',
      why: 'the nightly script test runs the real AWS CLI against a local S3 server',
      find: () => findAwsCliV2(),
    },
    command('git', 'git', 'the tests ask git what .gitignore keeps out'),
    command('qemu-io', 'qemu-utils', 'the local Flatcar test writes through a disk overlay'),
  ],
} as const satisfies Record<string, readonly Need[]>;

export type Purpose = keyof typeof NEEDS;
export const PURPOSES = Object.keys(NEEDS) as Purpose[];

/** What a purpose needs: the lab's own list, and for the tests theirs too. */
function needsOf(purpose: Purpose): readonly Need[] {
  return purpose === 'lab' ? NEEDS.lab : [...NEEDS.lab, ...NEEDS.tests];
}

const MIN_FREE = 8 * 1024 ** 3;

function freeBytes(path: string): number {
  mkdirSync(path, { recursive: true });
  const s = statfsSync(path);
  return s.bavail * s.bsize;
}

function toolChecks(purpose: Purpose): Check[] {
  const checks: Check[] = needsOf(purpose).map((t) => {
    const path = t.find();
    return {
      what: t.what,
      ok: !!path,
      detail: path ? path : `missing (${t.why})`,
      aptPackage: t.pkg,
      fix: `apt-get install -y --no-install-recommends ${t.pkg}`,
    };
  });
  const virtiofsd = findVirtiofsd();
  checks.push({
    what: 'virtiofsd',
    ok: !!virtiofsd,
    detail: virtiofsd ?? 'missing (only mount kind hostshare needs it)',
    aptPackage: 'qemu-system-common',
    fix: 'apt-get install -y --no-install-recommends qemu-system-common',
    optional: true,
  });
  // For the tests, socat and nfs-ganesha are required above, not optional.
  if (purpose === 'tests') return checks;
  const socat = which(NFS_TOOLS.socat);
  checks.push({
    what: NFS_TOOLS.socat,
    ok: !!socat,
    detail: socat ?? 'missing (only mount kind hostshare-nfs needs it)',
    aptPackage: 'socat',
    fix: 'apt-get install -y --no-install-recommends socat',
    optional: true,
  });
  // Not installed by --install: on a machine with systemd, Debian's package
  // also starts its own NFS service and rpcbind on every interface.
  const ganesha = which(NFS_TOOLS.ganesha);
  const plugin = findVfsPlugin();
  checks.push({
    what: `${NFS_TOOLS.ganesha} and its VFS plugin`,
    ok: !!ganesha && !!plugin,
    detail: ganesha && plugin ? `${ganesha}, ${plugin}` : 'missing (only mount kind hostshare-nfs needs them)',
    fix: 'apt-get install -y --no-install-recommends nfs-ganesha nfs-ganesha-vfs, then on a machine with systemd `systemctl disable --now nfs-ganesha rpcbind rpcbind.socket` (layerlab starts its own server on 127.0.0.1)',
    optional: true,
  });
  return checks;
}

/** Informational: KVM when /dev/kvm is usable, else TCG; never a failure. */
function acceleratorCheck(): Check {
  let kvm = false;
  try {
    accessSync('/dev/kvm', constants.R_OK | constants.W_OK);
    kvm = true;
  } catch {
    // TCG then
  }
  return {
    what: 'accelerator',
    ok: true,
    detail: kvm
      ? '/dev/kvm is usable; `up` boots a probe under KVM and falls back to TCG if the guest does not run'
      : 'no usable /dev/kvm: QEMU TCG (software emulation; slower, numbers measure the emulated CPU too)',
  };
}

function diskChecks(): Check[] {
  return (
    [
      ['free disk (image cache)', cacheRoot()],
      ['free disk (lab state)', stateRoot()],
    ] as const
  ).map(([what, path]) => {
    const free = freeBytes(path);
    return {
      what,
      ok: free >= MIN_FREE,
      detail: `${formatBytes(free)} free in ${path}`,
      fix: `free at least ${formatBytes(MIN_FREE)} there, or set LAYERLAB_CACHE / LAYERLAB_HOME elsewhere`,
    };
  });
}

export function runChecks(purpose: Purpose = 'lab'): Check[] {
  const major = Number(process.versions.node.split('.')[0]);
  const root = process.getuid?.() === 0;
  const sources = aptSourceFiles();
  return [
    { what: 'Node.js >= 20', ok: major >= 20, detail: process.version, fix: 'install Node.js 20' },
    ...toolChecks(purpose),
    {
      what: 'running as root',
      ok: root,
      detail: root ? 'yes' : 'no: mmdebstrap --mode=root and cache=none disks need root',
      fix: 'run layerlab as root (sudo -E npx layerlab ...)',
    },
    acceleratorCheck(),
    {
      what: 'apt sources for Debian 12',
      ok: sources.length > 0,
      detail: sources.length ? sources.join(', ') : 'none found',
      fix: 'set LAYERLAB_APT_SOURCES=/path/to/bookworm.sources',
    },
    ...diskChecks(),
  ];
}

export function printChecks(checks: readonly Check[]): void {
  for (const c of checks) {
    process.stdout.write(`${c.ok ? 'ok     ' : c.optional ? 'warn   ' : 'MISSING'} ${c.what}: ${c.detail}\n`);
    if (!c.ok && c.fix) process.stdout.write(`        fix: ${c.fix}\n`);
  }
}

/** Why `--install` cannot install on this machine, or undefined. */
function cannotInstall(): string | undefined {
  if (process.getuid?.() !== 0) return 'this is not root';
  if (!which('apt-get')) return 'this machine has no apt-get';
  return undefined;
}

/**
 * Where systemd runs, Debian's nfs-ganesha package starts its NFS server (and
 * rpcbind, if it brought it) on every interface; a lab starts its own server
 * on 127.0.0.1 and refuses to while another is registered with rpcbind. So
 * what the install started is stopped and disabled again; an rpcbind that was
 * here before is left alone.
 */
async function stopPackagedNfsServer(hadRpcbind: boolean): Promise<void> {
  if (!existsSync('/run/systemd/system') || !which('systemctl')) return;
  const units = ['nfs-ganesha', ...(hadRpcbind ? [] : ['rpcbind', 'rpcbind.socket'])];
  process.stderr.write(`layerlab: disabling ${units.join(' ')}: a lab starts its own NFS server on 127.0.0.1\n`);
  await runLocal('systemctl', ['disable', '--now', ...units], { stdio: ['ignore', 'inherit', 'inherit'] });
}

/** Installs the missing Debian packages (root, apt-get). Returns whether it tried. */
export async function installMissing(checks: readonly Check[]): Promise<boolean> {
  const packages = [...new Set(checks.filter((c) => !c.ok && c.aptPackage).map((c) => c.aptPackage as string))];
  if (!packages.length) return false;
  const why = cannotInstall();
  if (why) {
    process.stderr.write(`layerlab: cannot install ${packages.join(' ')}: ${why}\n`);
    return false;
  }
  process.stderr.write(`layerlab: installing ${packages.join(' ')} with apt-get\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = await runLocal('apt-get', ['update', '-qq'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (update.code !== 0) return true;
  const hadRpcbind = !!which('rpcbind');
  await runLocal('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (packages.includes('nfs-ganesha') && which(NFS_TOOLS.ganesha)) await stopPackagedNfsServer(hadRpcbind);
  return true;
}

/** One line naming what is still missing (and the packages that bring it), or undefined. */
export function missingSummary(checks: readonly Check[], purpose: Purpose): string | undefined {
  const missing = checks.filter((c) => !c.ok && !c.optional);
  if (!missing.length) return undefined;
  const packages = [...new Set(missing.flatMap((c) => (c.aptPackage ? [c.aptPackage] : [])))];
  const install = packages.length
    ? `; as root, \`layerlab doctor --install${purpose === 'lab' ? '' : ` --for ${purpose}`}\` installs ${packages.join(' ')}`
    : '';
  return `layerlab: not ready for ${purpose === 'lab' ? 'the lab' : 'the tests'}: missing ${missing.map((c) => c.what).join(', ')}${install}`;
}

/** The local target's prepared VM templates, one line each, least recently used first. */
export function templateLines(): string[] {
  const templates = listTemplates();
  const total = templates.reduce((n, t) => n + t.bytes, 0);
  const state = templatesEnabled() ? `cap ${formatBytes(templateCapBytes())}` : 'off (LAYERLAB_TEMPLATES=off)';
  return [
    `prepared VM templates: ${templates.length}, ${formatBytes(total)} (${state}) in ${templatesRoot()}`,
    ...templates.map(({ key, bytes, meta: { spec, lastUsedAt } }) => {
      const images = Object.keys(spec.toolImageTags).sort().join('+') || 'no tool images';
      const shape = `${spec.cpus} CPU, ${spec.memoryMiB} MiB, ${spec.diskGiB} GiB disk, ${spec.accel}`;
      return `  ${key}  lab ${spec.lab}, ${spec.profile}, ${shape}, ${images}: ${formatBytes(bytes)}, last used ${lastUsedAt}`;
    }),
  ];
}

/** `layerlab doctor [--install] [--for tests]`: exit 2 while something required is missing. */
export async function doctorCommand(opts: { install?: boolean; for?: string }): Promise<void> {
  const purpose = opts.for ?? 'lab';
  if (!(PURPOSES as string[]).includes(purpose))
    throw new UserError(`doctor --for ${purpose}: not something doctor checks for; one of ${PURPOSES.join(', ')}`);
  let checks = runChecks(purpose as Purpose);
  if (opts.install && (await installMissing(checks))) checks = runChecks(purpose as Purpose);
  printChecks(checks);
  process.stdout.write(`${templateLines().join('\n')}\n`);
  const summary = missingSummary(checks, purpose as Purpose);
  if (summary) {
    process.stderr.write(`${summary}\n`);
    process.exitCode = 2;
  }
}
