/**
 * `layerlab seed-parameters` (issue 39, item 3) through the real CLI entry:
 * it prints every seed's parameters beside the seed labs', and the page the
 * repository keeps (docs/seed-parameters.md) is exactly that, so the page
 * cannot drift from the seed facts, the labs or the comparison.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { SEED_LABS, SEED_PARAMETERS_DOC, seedParametersText } from '../../../lab/commands/seed-parameters.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const BIN = join(ROOT, 'bin', 'layerlab.js');

describe('layerlab seed-parameters', () => {
  it(`prints the page, and ${SEED_PARAMETERS_DOC} is what it prints now`, () => {
    const r = spawnSync(process.execPath, [BIN, 'seed-parameters'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^# The seeds’ parameters beside the seed labs’\n/);
    const kept = readFileSync(join(ROOT, SEED_PARAMETERS_DOC), 'utf8');
    assert.ok(
      kept === r.stdout,
      `${SEED_PARAMETERS_DOC} differs from \`layerlab seed-parameters\` (a seed fact, a seed lab or the comparison changed): regenerate it with \`node bin/layerlab.js seed-parameters > ${SEED_PARAMETERS_DOC}\` and commit it`,
    );
  });

  it('a seed lab changed without the page: the page no longer matches', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seed-parameters-'));
    try {
      cpSync(join(ROOT, 'labs'), join(dir, 'labs'), { recursive: true });
      cpSync(join(ROOT, 'lab', 'definition'), join(dir, 'lab', 'definition'), { recursive: true });
      const file = join(dir, SEED_LABS[0]);
      writeFileSync(file, readFileSync(file, 'utf8').replace('clients: 4', 'clients: 3'));
      const drifted = await seedParametersText(dir);
      assert.notEqual(drifted, readFileSync(join(ROOT, SEED_PARAMETERS_DOC), 'utf8'));
      assert.match(drifted, /\| dbench clients \| 4 \| 3 — \*\*unlike\*\* \|/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists the differences issue 39 names, in every seed lab', () => {
    const page = readFileSync(join(ROOT, SEED_PARAMETERS_DOC), 'utf8');
    for (const label of ['storage stack', 'OverlayFS host', 'container network', 'database server', 'dump compression'])
      assert.match(page, new RegExp(`\\| ${label} \\|`), label);
    assert.match(page, /\| storage stack \| [^|]+ \| host ctrd: containerd-ext4 [^|]+ — same \|/);
  });
});
