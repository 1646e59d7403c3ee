import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OsRelease, ProfileName } from '../../catalog.js';
import { labStateDir } from '../../paths.js';

export { labStateDir };
import { writeFileAtomicSync } from '../../util/files.js';
import type { ProcessIdentity } from '../../util/proc.js';

/** One VM as `down` and a second `up` need to know it. */
export interface LocalHostState {
  name: string;
  profile: ProfileName;
  /** The Debian release it boots (absent in state written before releases existed: debian-12). */
  os?: OsRelease;
  /** The guest image (cache key) its disk is an overlay of. */
  imageKey?: string;
  dir: string;
  pid?: number;
  /**
   * When qemu started (clock ticks since boot, /proc/<pid>/stat field 22):
   * with the pid, what tells our VM from a process that got its pid later.
   * Absent in state written before it was recorded.
   */
  pidStart?: string;
  /** virtiofsd serving the hostshare folder, when the lab uses that mount kind. */
  sharePid?: number;
  sharePidStart?: string;
  /** The share mechanisms it was booted with (catalog: MountSpec.share); a lab that now needs others reboots it. */
  shares?: string[];
  /** Its NFS export's own file system was (being) mounted: `down` unmounts it. */
  nfsExport?: boolean;
  /** nfs-ganesha serving the hostshare-nfs folder on 127.0.0.1:nfsPort, when the lab uses that mount kind. */
  nfsPid?: number;
  nfsPidStart?: string;
  nfsPort?: number;
  port?: number;
  accel?: 'kvm' | 'tcg';
  hostKey?: string;
  /** Set once the storage profile and tool images are in place. */
  prepared?: boolean;
  /** The tool images (names) it was prepared with; absent in state written before they were recorded. */
  toolImages?: string[];
  /** The template this VM was restored from (absent: booted and prepared here). */
  template?: string;
}

export interface LocalLabState {
  lab: string;
  labFile: string;
  createdAt: string;
  /**
   * The controller that created the lab to remove it again (`all`): when that
   * process is gone, the VMs are orphans and `layerlab sweep` removes them.
   * Labs made by `up` have no owner: they stay until `down`.
   */
  owner?: ProcessIdentity;
  hosts: Record<string, LocalHostState>;
}

function statePath(lab: string): string {
  return join(labStateDir(lab), 'state.json');
}

export function readLocalState(lab: string): LocalLabState | undefined {
  const path = statePath(lab);
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as LocalLabState;
}

/**
 * state.json is rewritten (atomically) after every change, synchronously, so
 * that a pid is on disk before anything else can fail or be interrupted.
 */
export class LocalStateStore {
  constructor(readonly state: LocalLabState) {
    mkdirSync(labStateDir(state.lab), { recursive: true, mode: 0o700 });
  }

  static openOrCreate(lab: string, labFile: string): LocalStateStore {
    return new LocalStateStore(readLocalState(lab) ?? { lab, labFile, createdAt: new Date().toISOString(), hosts: {} });
  }

  update(host: string, patch: Partial<LocalHostState>): LocalHostState {
    const current = this.state.hosts[host];
    const next = { ...current, ...patch } as LocalHostState;
    this.state.hosts[host] = next;
    this.save();
    return next;
  }

  remove(host: string): void {
    delete this.state.hosts[host];
    this.save();
  }

  save(): void {
    writeFileAtomicSync(statePath(this.state.lab), `${JSON.stringify(this.state, null, 2)}\n`);
  }
}
