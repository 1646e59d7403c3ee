/** Sizes as people write them in lab definitions: "64M", "4k", "1G" (binary units). */

const UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };
const SIZE_RE = /^(\d+)([kmgt]?)(i?b)?$/i;

export function parseSize(text: string): number | undefined {
  const m = SIZE_RE.exec(text.trim());
  if (!m) return undefined;
  const unit = UNITS[(m[2] ?? '').toLowerCase()];
  return unit === undefined ? undefined : Number(m[1]) * unit;
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  return `${value >= 100 || i === 0 ? value.toFixed(0) : value.toFixed(1)} ${units[i]}`;
}
