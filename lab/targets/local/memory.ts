import { readFileSync } from 'node:fs';
import type { LabDefinition } from '../../definition/schema.js';
import type { Accel } from './qemu.js';

/** MemAvailable of this machine in MiB (undefined where /proc/meminfo does not say). */
export function availableMemoryMiB(): number | undefined {
  try {
    const kib = /^MemAvailable:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1];
    return kib ? Math.floor(Number(kib) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A warning when the lab's VMs may come to need more memory than this machine
 * has available: each VM's RAM and, under TCG, its translated-code cache,
 * which grows to its size as the guest runs new code. A warning, not a
 * refusal: neither fills at once, and what else runs here may end first.
 */
export function memoryWarning(lab: LabDefinition, accel: Accel, availableMiB: number | undefined): string | undefined {
  if (availableMiB === undefined) return undefined;
  const cache = accel === 'tcg' ? lab.target.local.tcgCacheMiB : 0;
  const need = lab.hosts.reduce((sum, h) => sum + h.memoryMiB + cache, 0);
  if (need <= availableMiB) return undefined;
  const what = accel === 'tcg' ? `memory plus a ${cache} MiB TCG code cache each` : 'memory';
  return (
    `warning: the ${lab.hosts.length} VM(s) may use up to ${need} MiB (${what}), ` +
    `more than the ${availableMiB} MiB available here; lower hosts' memoryMiB` +
    (accel === 'tcg' ? ' or target.local.tcgCacheMiB' : '') +
    ', or run fewer hosts at once'
  );
}
