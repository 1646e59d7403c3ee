/**
 * Issue 12, finding 5: a full disk must not leave a torn NDJSON line that
 * later breaks `run --resume` with a message that names no file.
 */
import assert from 'node:assert/strict';
import fs, { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, it, mock } from 'node:test';
import { Journal } from '../../../lab/record/journal.ts';
import { readSamples } from '../../../lab/record/samples.ts';
import { appendLineSync, writeFileAtomicSync } from '../../../lab/util/files.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-diskfull-'));
after(() => rmSync(work, { recursive: true, force: true }));
afterEach(() => {
  mock.restoreAll();
  syncBuiltinESMExports();
});

/** Makes the next writeSync write only half of what it is given, as on a nearly full disk. */
function shortWriteOnce(): { calls: () => number } {
  const original = fs.writeSync;
  let first = true;
  const stub = mock.method(fs, 'writeSync', (fd: number, data: string | NodeJS.ArrayBufferView, ...rest: unknown[]) => {
    const bytes =
      typeof data === 'string'
        ? Buffer.from(data)
        : Buffer.from(data.buffer, data.byteOffset, data.byteLength).subarray(
            Number(rest[0] ?? 0),
            Number(rest[0] ?? 0) + Number(rest[1] ?? data.byteLength - Number(rest[0] ?? 0)),
          );
    if (!first) return original(fd, bytes);
    first = false;
    return original(fd, bytes.subarray(0, Math.floor(bytes.length / 2)));
  });
  syncBuiltinESMExports();
  return { calls: () => stub.mock.callCount() };
}

const SAMPLE = {
  run: 'r',
  host: 'xfs',
  profile: 'overlay2-xfs',
  scenario: 'fio',
  mount: 'layer',
  rep: 1,
  trial: 't1',
  metric: 'm',
  value: -1.5,
  unit: 's',
  timestamp: '2026-12-01T00:00:00.000Z',
};

describe('finding 5: appends are whole lines', () => {
  it('a short write is completed, not left as a torn line', () => {
    const path = join(work, 'short.ndjson');
    const stub = shortWriteOnce();
    appendLineSync(path, JSON.stringify(SAMPLE));
    assert.ok(stub.calls() > 0, 'appendLineSync writes through fs.writeSync (the stub saw it)');
    mock.restoreAll();
    syncBuiltinESMExports();
    assert.equal(readFileSync(path, 'utf8'), `${JSON.stringify(SAMPLE)}\n`, 'the whole line and its newline');
  });

  it('a write that fails throws the real error (ENOSPC)', () => {
    const path = join(work, 'enospc.ndjson');
    mock.method(fs, 'writeSync', () => {
      const err: NodeJS.ErrnoException = new Error('ENOSPC: no space left on device, write');
      err.code = 'ENOSPC';
      throw err;
    });
    syncBuiltinESMExports();
    assert.throws(() => appendLineSync(path, '{}'), { code: 'ENOSPC' });
  });

  it('a torn tail left by a crash is cut before the next line, not glued to it', () => {
    const path = join(work, 'torn-then-append.ndjson');
    writeFileSync(path, '{"trial":"t0","state":"done"}\n{"trial":"t1","sta');
    appendLineSync(path, '{"trial":"t2","state":"done"}');
    assert.equal(readFileSync(path, 'utf8'), '{"trial":"t0","state":"done"}\n{"trial":"t2","state":"done"}\n');
  });
});

describe('finding 5: NDJSON readers', () => {
  it('samples.ndjson with a torn last line: the rest is read, a warning names the file', () => {
    const path = join(work, 'samples-torn.ndjson');
    writeFileSync(path, `${JSON.stringify(SAMPLE)}\n{"run":"r","host":"xf`);
    const warnings: string[] = [];
    const samples = readSamples(path, (m) => warnings.push(m));
    assert.equal(samples.length, 1, 'the complete line is kept');
    assert.equal(warnings.length, 1, `one warning: ${warnings.join('; ')}`);
    assert.match(warnings[0] ?? '', /samples-torn\.ndjson:2: ignoring a torn last line/);
  });

  it('a bad line that is not the last one names file and line', () => {
    const path = join(work, 'samples-bad.ndjson');
    writeFileSync(path, `${JSON.stringify(SAMPLE)}\n{"run":\n${JSON.stringify(SAMPLE)}\n`);
    assert.throws(() => readSamples(path, () => undefined), /samples-bad\.ndjson:2: not a JSON line/);
  });

  it('the journal: a torn last line is skipped with a warning, a bad middle line is an error naming file:line', () => {
    const torn = join(work, 'journal-torn.ndjson');
    writeFileSync(torn, '{"trial":"t0","host":"xfs","state":"done"}\n{"trial":"t1","sta');
    const warnings: string[] = [];
    assert.deepEqual(
      Journal.read(torn, (m) => warnings.push(m)).map((e) => e.trial),
      ['t0'],
      'the complete entry survives',
    );
    assert.match(warnings.join('\n'), /journal-torn\.ndjson:2: ignoring a torn last line/);
    const bad = join(work, 'journal-bad.ndjson');
    writeFileSync(
      bad,
      '{"trial":"t0","host":"xfs","state":"done"}\ngarbage\n{"trial":"t1","host":"xfs","state":"done"}\n',
    );
    assert.throws(() => Journal.read(bad, () => undefined), /journal-bad\.ndjson:2: not a JSON line/);
  });

  it('a line that is JSON but not a record entry is refused naming file, line and field — the last line too', () => {
    const journal = join(work, 'journal-shape.ndjson');
    writeFileSync(journal, '{"trial":"t0","host":"xfs","state":"done"}\n{"trial":"t1","host":"xfs","state":"gone"}\n');
    assert.throws(() => Journal.read(journal, () => undefined), /journal-shape\.ndjson:2: .*state/);
    const samples = join(work, 'samples-shape.ndjson');
    writeFileSync(samples, `${JSON.stringify(SAMPLE)}\n${JSON.stringify({ ...SAMPLE, value: 'fast' })}`);
    assert.throws(() => readSamples(samples, () => undefined), /samples-shape\.ndjson:2: .*value/);
  });
});

describe('writeFileAtomicSync', () => {
  it('replaces the file whole and leaves no temporary file', () => {
    const sub = mkdtempSync(join(work, 'atomic-'));
    const path = join(sub, 'h.sqlite');
    writeFileSync(path, 'old');
    writeFileAtomicSync(path, new TextEncoder().encode('new'));
    assert.equal(readFileSync(path, 'utf8'), 'new');
    assert.deepEqual(readdirSync(sub), ['h.sqlite'], 'only the file itself');
  });

  it('tells why it could not start the write, not that there was no temporary file to remove', () => {
    const notADir = join(work, 'plain-file');
    writeFileSync(notADir, 'x');
    assert.throws(
      () => writeFileAtomicSync(join(notADir, 'h.sqlite'), new Uint8Array([1])),
      (err: NodeJS.ErrnoException) => err.syscall === 'open',
    );
  });

  it('a write that fails midway leaves the old file and no temporary file', () => {
    const sub = mkdtempSync(join(work, 'atomic-'));
    const path = join(sub, 'state.json');
    writeFileSync(path, 'old');
    mock.method(fs, 'writeSync', () => {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    });
    syncBuiltinESMExports();
    assert.throws(() => writeFileAtomicSync(path, 'new'), /ENOSPC/);
    assert.equal(readFileSync(path, 'utf8'), 'old');
    assert.deepEqual(readdirSync(sub), ['state.json'], 'the temporary file is removed');
  });
});
