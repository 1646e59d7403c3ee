import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, statfsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { z } from 'zod';
import type { ProfileName } from '../../catalog.js';
import { GUEST_DIR, cacheRoot } from '../../paths.js';
import { writeFileAtomicSync } from '../../util/files.js';
import { hashInputs } from '../../util/hash.js';
import { isAlive } from '../../util/proc.js';
import { GUEST_KERNEL_CMDLINE, QEMU } from './qemu.js';

/**
 * A prepared VM kept in the image cache: its disks and memory right after
 * `prepare`, so that a later `up` of the same combination restores it in
 * seconds instead of booting and preparing. This module is the cache side:
 * keys, where templates live, what each holds, how big they may grow.
 */

/** A host's template: its key and what it is the key of. */
export interface WantedTemplate {
  key: string;
  spec: TemplateSpec;
}

/**
 * Everything that shapes a prepared VM; any change makes a new key. How
 * QEMU runs it on this machine is not in it: TCG's code cache
 * (tcgCacheMiB) is dropped and refilled anyway, and the disks' aio mode
 * (diskAio) is how QEMU reaches the disk files, which the saved state does
 * not carry. QEMU's `stop` drains every request before the save, so a
 * template saved under one mode restores under another with nothing in flight.
 */
export interface TemplateSpec {
  /**
   * The lab: prepare labels what it loads with the lab's name (cleanup finds
   * it by that label), so a VM restored into another lab would carry a
   * foreign label; a VM of a local lab used as a static machine then keeps it.
   */
  lab: string;
  imageKey: string;
  accel: 'kvm' | 'tcg';
  cpus: number;
  memoryMiB: number;
  diskGiB: number;
  profile: ProfileName;
  /** Tool images loaded by prepare, name → content tag. */
  toolImageTags: Record<string, string>;
}

const metaSchema = z.object({
  key: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string(),
  /** The template VM's SSH host key (public line): what a restored VM answers with until refreshed. */
  hostKey: z.string(),
  qemu: z.string(),
  spec: z.object({
    lab: z.string(),
    imageKey: z.string(),
    accel: z.enum(['kvm', 'tcg']),
    cpus: z.number(),
    memoryMiB: z.number(),
    diskGiB: z.number(),
    profile: z.string(),
    toolImageTags: z.record(z.string()),
  }),
});
export type TemplateMeta = z.infer<typeof metaSchema>;

export interface Template {
  key: string;
  dir: string;
  meta: TemplateMeta;
  /** Bytes the template takes on disk (allocated, not apparent). */
  bytes: number;
}

/** The files of a template folder (the disks keep the names a VM folder gives them). */
export const templateFiles = (dir: string) => ({
  root: join(dir, 'root.qcow2'),
  data: join(dir, 'data.raw'),
  memory: join(dir, 'memory.zst'),
  key: join(dir, 'id_ed25519'),
  meta: join(dir, 'template.json'),
});

export const templatesRoot = () => join(cacheRoot(), 'templates');

/** Default cap on all templates together; LAYERLAB_TEMPLATE_CAP_GIB overrides it (0: keep none). */
const DEFAULT_CAP_GIB = 12;

export function templateCapBytes(): number {
  const raw = process.env.LAYERLAB_TEMPLATE_CAP_GIB;
  const gib = raw === undefined || raw === '' ? DEFAULT_CAP_GIB : Number(raw);
  return Number.isFinite(gib) && gib >= 0 ? gib * 1024 ** 3 : DEFAULT_CAP_GIB * 1024 ** 3;
}

/** LAYERLAB_TEMPLATES=off: every `up` boots and prepares, and keeps nothing. */
export function templatesEnabled(): boolean {
  return process.env.LAYERLAB_TEMPLATES !== 'off' && templateCapBytes() > 0;
}

let qemuVersion: string | undefined;
function qemuVersionLine(): string {
  qemuVersion ??= execFileSync(QEMU, ['--version'], { encoding: 'utf8' }).split('\n')[0]?.trim() ?? 'unknown';
  return qemuVersion;
}

/**
 * QEMU's version line, or undefined where QEMU is not installed: a sweep
 * (and its unit tests) must work on a controller without QEMU, and a
 * template is not judged stale by a version nobody can read.
 */
function installedQemuVersionLine(): string | undefined {
  try {
    return qemuVersionLine();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]))
    .sort();
}

/**
 * Guest files that never shape a prepared VM, by their path under guest/:
 * each is pushed afresh right before it runs (every run and resumption
 * pushes the guest files before env.sh and the trials; a host build before
 * build-tool-image.sh), or it runs on static hosts only, which have no
 * templates. Changing one of them keeps the templates. Every other guest file
 * — profiles, lib.sh, load-image.sh, and any file added later — is in the key.
 */
export const RUN_TIME_GUEST_FILES: ReadonlySet<string> = new Set([
  'env.sh',
  'run-trial.sh',
  'cleanup.sh',
  'check-host.sh',
  'build-tool-image.sh',
]);

/** The guest files a template's key covers: all under `guestDir` but the run-time ones. */
export function templateGuestFiles(guestDir = GUEST_DIR): string[] {
  return filesUnder(guestDir).filter((f) => !RUN_TIME_GUEST_FILES.has(relative(guestDir, f)));
}

/**
 * The key: the spec, the QEMU build (saved state loads only into the same
 * machine model), the guest kernel's command line and every guest file that
 * prepare runs (a changed profile script must not be served from an old template).
 */
export async function templateKey(spec: TemplateSpec): Promise<string> {
  const tags = Object.entries(spec.toolImageTags).sort(([a], [b]) => a.localeCompare(b));
  const guestFiles = templateGuestFiles();
  return hashInputs(guestFiles, [
    'template-v1',
    qemuVersionLine(),
    // A template's memory holds a kernel booted with this command line.
    GUEST_KERNEL_CMDLINE,
    JSON.stringify({ ...spec, toolImageTags: tags }),
    ...guestFiles.map((f) => relative(GUEST_DIR, f)),
  ]);
}

const allocatedBytes = (path: string) => (existsSync(path) ? statSync(path).blocks * 512 : 0);

function readTemplate(dir: string): Template | undefined {
  const files = templateFiles(dir);
  if (![files.root, files.data, files.memory, files.key, files.meta].every((f) => existsSync(f))) return undefined;
  const parsed = metaSchema.safeParse(JSON.parse(readFileSync(files.meta, 'utf8')));
  if (!parsed.success) return undefined;
  const bytes = [files.root, files.data, files.memory, files.key, files.meta].reduce(
    (n, f) => n + allocatedBytes(f),
    0,
  );
  return { key: parsed.data.key, dir, meta: parsed.data, bytes };
}

/** The finished template of this key, if the cache has one. */
export function findTemplate(key: string): Template | undefined {
  return readTemplate(join(templatesRoot(), key));
}

/** Every finished template, least recently used first. */
export function listTemplates(): Template[] {
  const root = templatesRoot();
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((name) => /^[0-9a-f]{16}$/.test(name))
    .flatMap((name) => readTemplate(join(root, name)) ?? [])
    .sort((a, b) => a.meta.lastUsedAt.localeCompare(b.meta.lastUsedAt));
}

export function touchTemplate(template: Template): void {
  writeTemplateMeta(template.dir, { ...template.meta, lastUsedAt: new Date().toISOString() });
}

export function writeTemplateMeta(dir: string, meta: TemplateMeta): void {
  writeFileAtomicSync(templateFiles(dir).meta, `${JSON.stringify(meta, null, 2)}\n`);
}

export function newTemplateMeta(key: string, spec: TemplateSpec, hostKey: string): TemplateMeta {
  const now = new Date().toISOString();
  return { key, createdAt: now, lastUsedAt: now, hostKey, qemu: qemuVersionLine(), spec };
}

/** Removes one template folder: only ever a folder directly under the templates root named by a key (or a save of one). */
export async function removeTemplate(template: Pick<Template, 'dir'>): Promise<void> {
  const name = relative(templatesRoot(), template.dir);
  if (!/^[0-9a-f]{16}(\.partial-\d+-[0-9a-f]+)?$/.test(name)) throw new Error(`not a template folder: ${template.dir}`);
  await rm(template.dir, { recursive: true, force: true });
}

/** Removes the least recently used templates until all of them fit in the cap; returns what went. */
export async function enforceTemplateCap(cap = templateCapBytes()): Promise<Template[]> {
  const all = listTemplates();
  let total = all.reduce((n, t) => n + t.bytes, 0);
  const removed: Template[] = [];
  for (const t of all) {
    if (total <= cap) break;
    await removeTemplate(t);
    total -= t.bytes;
    removed.push(t);
  }
  return removed;
}

/** A template folder `sweep` may remove, and why. */
export interface StaleTemplate {
  dir: string;
  reason: string;
}

const UNUSED_DAYS = 30;

/** The backing file a template's root disk names (the guest image it was made from). */
function backingFile(root: string): string | undefined {
  try {
    const info = JSON.parse(execFileSync('qemu-img', ['info', '-U', '--output=json', root], { encoding: 'utf8' }));
    return typeof info['backing-filename'] === 'string' ? info['backing-filename'] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Templates that can no longer be restored (their guest image or QEMU build
 * is gone), unused for 30 days, or (`all`) every one; and folders of saves
 * that never finished, whose process is gone.
 */
export function staleTemplates(all = false): StaleTemplate[] {
  const root = templatesRoot();
  if (!existsSync(root)) return [];
  const stale: StaleTemplate[] = [];
  for (const name of readdirSync(root)) {
    const dir = join(root, name);
    const partial = /^[0-9a-f]{16}\.partial-(\d+)-/.exec(name);
    if (partial) {
      if (all || !isAlive(Number(partial[1]))) stale.push({ dir, reason: 'an unfinished save whose process is gone' });
      continue;
    }
    if (!/^[0-9a-f]{16}$/.test(name)) continue;
    const template = readTemplate(dir);
    const backing = template && backingFile(templateFiles(dir).root);
    const unusedDays = template ? (Date.now() - Date.parse(template.meta.lastUsedAt)) / 86_400_000 : 0;
    const reason = all
      ? 'all templates asked for (--templates)'
      : !template
        ? 'incomplete or unreadable'
        : (installedQemuVersionLine() ?? template.meta.qemu) !== template.meta.qemu
          ? `made with ${template.meta.qemu}`
          : !backing || !existsSync(backing)
            ? 'its guest image is no longer in the cache'
            : unusedDays > UNUSED_DAYS
              ? `unused for ${Math.floor(unusedDays)} days`
              : undefined;
    if (reason) stale.push({ dir, reason });
  }
  return stale;
}

/** Whether the cache's file system has room for a template of a VM this big (memory + disks, with a margin). */
export function roomForTemplate(memoryMiB: number, diskBytes: number): boolean {
  const root = existsSync(templatesRoot()) ? templatesRoot() : cacheRoot();
  const fs = statfsSync(existsSync(root) ? root : '/');
  return fs.bavail * fs.bsize > memoryMiB * 1024 ** 2 + diskBytes + 2 * 1024 ** 3;
}
