import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every file under `dir`, as paths relative to it. */
function listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? listFiles(path, base) : [relative(base, path)];
  });
}

function sha256(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (c) => hash.update(c))
      .on('end', () => resolve(hash.digest('hex')))
      .on('error', reject);
  });
}

/**
 * Checks a pulled folder against the MANIFEST the guest wrote before sending
 * it ("sha256 size path" per file): every file present with its size and
 * hash, nothing extra. Returns the problems (empty when all is well).
 */
export async function checkManifest(dir: string): Promise<string[]> {
  const manifestPath = join(dir, 'MANIFEST');
  if (!existsSync(manifestPath)) return ['no MANIFEST from the guest (incomplete transfer?)'];
  const problems: string[] = [];
  const listed = new Set<string>();
  for (const line of readFileSync(manifestPath, 'utf8').split('\n')) {
    if (!line) continue;
    const [hash, sizeText] = line.split(' ', 2);
    const path = line.slice((hash?.length ?? 0) + (sizeText?.length ?? 0) + 2);
    listed.add(path);
    const local = join(dir, path);
    if (!existsSync(local)) {
      problems.push(`${path}: missing`);
      continue;
    }
    const size = statSync(local).size;
    if (size !== Number(sizeText)) problems.push(`${path}: ${size} bytes, the guest wrote ${sizeText}`);
    else if ((await sha256(local)) !== hash) problems.push(`${path}: sha256 differs from the guest's`);
  }
  for (const path of listFiles(dir)) {
    if (path !== 'MANIFEST' && !listed.has(path)) problems.push(`${path}: not in the guest's MANIFEST`);
  }
  return problems;
}
