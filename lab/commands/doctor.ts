import { constants, accessSync, statfsSync } from 'node:fs';
import { mkdirSync } from 'node:fs';
import { cacheRoot, stateRoot } from '../paths.js';
import { findVirtiofsd } from '../targets/local/hostshare.js';
import { NFS_TOOLS, findVfsPlugin } from '../targets/local/nfs-share.js';
import { listTemplates, templateCapBytes, templatesEnabled, templatesRoot } from '../targets/local/template-store.js';
import { aptSourceFiles } from '../util/apt-sources.js';
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

const TOOLS: { cmd: string; pkg: string; why: string }[] = [
  { cmd: 'qemu-system-x86_64', pkg: 'qemu-system-x86', why: 'runs the local VMs' },
  { cmd: 'qemu-img', pkg: 'qemu-utils', why: 'creates copy-on-write overlays of the guest image' },
  { cmd: 'mmdebstrap', pkg: 'mmdebstrap', why: 'builds the guest and tool images from Debian packages' },
  { cmd: 'mkfs.ext4', pkg: 'e2fsprogs', why: 'writes the guest root filesystem without a loop mount' },
  { cmd: 'zstd', pkg: 'zstd', why: 'compresses tool images for upload' },
  { cmd: 'tar', pkg: 'tar', why: 'packs guest files' },
];

const MIN_FREE = 8 * 1024 ** 3;

function freeBytes(path: string): number {
  mkdirSync(path, { recursive: true });
  const s = statfsSync(path);
  return s.bavail * s.bsize;
}

function toolChecks(): Check[] {
  const checks: Check[] = TOOLS.map((t) => {
    const path = which(t.cmd);
    return {
      what: t.cmd,
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

export function runChecks(): Check[] {
  const major = Number(process.versions.node.split('.')[0]);
  const root = process.getuid?.() === 0;
  const sources = aptSourceFiles();
  return [
    { what: 'Node.js >= 20', ok: major >= 20, detail: process.version, fix: 'install Node.js 20' },
    ...toolChecks(),
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

/** Installs the missing Debian packages (root, apt-get). Returns whether it tried. */
export async function installMissing(checks: readonly Check[]): Promise<boolean> {
  const packages = checks.filter((c) => !c.ok && c.aptPackage).map((c) => c.aptPackage as string);
  if (!packages.length) return false;
  if (process.getuid?.() !== 0 || !which('apt-get')) return false;
  process.stderr.write(`layerlab: installing ${packages.join(' ')} with apt-get\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = await runLocal('apt-get', ['update', '-qq'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (update.code !== 0) return true;
  await runLocal('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return true;
}

/** `layerlab doctor [--install]`: exit 2 while something required is missing. */
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

export async function doctorCommand(opts: { install?: boolean }): Promise<void> {
  let checks = runChecks();
  if (opts.install && (await installMissing(checks))) checks = runChecks();
  printChecks(checks);
  process.stdout.write(`${templateLines().join('\n')}\n`);
  if (checks.some((c) => !c.ok && !c.optional)) process.exitCode = 2;
}
