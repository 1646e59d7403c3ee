import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** Debian codenames a machine's apt sources may name (the suite's first word). */
const CODENAMES = ['buster', 'bullseye', 'bookworm', 'trixie', 'forky', 'duke'];
const SUITE_RE = new RegExp(`^(${CODENAMES.join('|')})(-[a-z]+)?$`);

/** A suite such as bookworm-security, moved to `codename` (trixie-security); others unchanged. */
function moveSuite(suite: string, codename: string): string {
  const m = SUITE_RE.exec(suite);
  return m ? `${codename}${m[2] ?? ''}` : suite;
}

/**
 * The text of an apt sources file (deb822 `.sources` or one-line `.list`)
 * with every Debian suite moved to `codename`: the same mirrors, keys and
 * components, another release. Suites that name no Debian release
 * (a vendor's `nodistro`) stay as they are.
 */
export function sourcesForRelease(text: string, codename: string): string {
  return text
    .split('\n')
    .map((line) => {
      const deb822 = /^(Suites:\s*)(.*)$/i.exec(line);
      if (deb822) {
        const suites = (deb822[2] ?? '').split(/\s+/).filter(Boolean);
        return `${deb822[1]}${suites.map((s) => moveSuite(s, codename)).join(' ')}`;
      }
      // deb [options] uri suite component...: the suite is the word after the URI.
      const oneLine = /^(\s*deb(?:-src)?\s+(?:\[[^\]]*\]\s+)?\S+\s+)(\S+)(.*)$/.exec(line);
      if (oneLine) return `${oneLine[1]}${moveSuite(oneLine[2] ?? '', codename)}${oneLine[3]}`;
      return line;
    })
    .join('\n');
}

/**
 * Writes the machine's apt sources, moved to `codename`, into `dir` (one
 * file per source, same names) and returns their paths: mmdebstrap reads
 * them as mirror arguments, the image key hashes them.
 */
export async function writeReleaseSources(files: readonly string[], codename: string, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  return Promise.all(
    files.map(async (file, i) => {
      const out = join(dir, `${String(i).padStart(2, '0')}-${basename(file)}`);
      // Written whole and renamed: two hosts building at once never read half a file.
      await writeFile(`${out}.${process.pid}.tmp`, sourcesForRelease(readFileSync(file, 'utf8'), codename));
      await rename(`${out}.${process.pid}.tmp`, out);
      return out;
    }),
  );
}
