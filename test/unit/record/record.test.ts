/** The run record: what it writes it reads back; old runs load; newer or damaged ones are refused by name. */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Plan } from '../../../lab/plan/plan.ts';
import { loadRun } from '../../../lab/record/load.ts';
import { RunRecord } from '../../../lab/record/record.ts';
import { readSamples } from '../../../lab/record/samples.ts';
import { RECORD_VERSION, type Sample } from '../../../lab/record/schemas.ts';
import { writeRun } from '../run-fixture.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-record-'));
after(() => rmSync(work, { recursive: true, force: true }));

const PLAN: Plan = {
  seed: 1,
  mode: 'serial',
  trials: [1, 2].map((rep) => ({
    id: `r${rep}-xfs-fio-layer`,
    host: 'xfs',
    profile: 'overlay2-xfs',
    scenario: 'fio',
    mount: 'layer',
    rep,
  })),
};

const FIELDS = {
  startedAt: '2026-12-01T00:00:00.000Z',
  labFile: 'labs/quick.yaml',
  lab: { name: 'quick' },
  inventory: { target: 'local' as const, hosts: [] },
  plan: { seed: 1, mode: 'serial' },
  gitRevision: 'abc',
  versions: { layerlab: '0.1.0' },
  toolImages: { fio: 'layerlab/fio:1' },
};

function sample(trial: string, value: number): Sample {
  return {
    run: 'x',
    host: 'xfs',
    profile: 'overlay2-xfs',
    scenario: 'fio',
    mount: 'layer',
    rep: 1,
    trial,
    metric: 'bw',
    value,
    unit: 'KiB/s',
    timestamp: '2026-12-01T00:00:00.000Z',
    job: 'seqwrite',
  };
}

describe('run record', () => {
  it('create writes manifest (with the record version), plan and an empty samples file; open reads them back', async () => {
    const record = await RunRecord.create(join(work, 'results'), 'quick', FIELDS, PLAN);
    const manifest = JSON.parse(readFileSync(join(record.dir, 'manifest.json'), 'utf8'));
    assert.equal(manifest.recordVersion, RECORD_VERSION);
    assert.equal(manifest.runId, record.runId);
    assert.equal(readFileSync(join(record.dir, 'samples.ndjson'), 'utf8'), '');
    const opened = RunRecord.open(record.dir);
    assert.equal(opened.runId, record.runId);
    assert.deepEqual(opened.plan, PLAN);
    assert.deepEqual(opened.manifest.toolImages, FIELDS.toolImages);
  });

  it('resumePoint keeps done trials and their samples, removes the rest, and counts their time', async () => {
    const record = await RunRecord.create(join(work, 'results'), 'quick', FIELDS, PLAN);
    const [done, cut] = PLAN.trials.map((t) => t.id) as [string, string];
    for (const id of [done, cut]) mkdirSync(join(record.dir, 'trials', id), { recursive: true });
    record.appendJournal({ trial: done, host: 'xfs', state: 'started' });
    record.appendSamples([sample(done, 1)]);
    record.appendJournal({ trial: done, host: 'xfs', state: 'done', wallSeconds: 7, samples: 1 });
    record.appendJournal({ trial: cut, host: 'xfs', state: 'started' });
    record.appendSamples([sample(cut, 2)]); // written, but its journal never said done
    const point = await record.resumePoint();
    assert.deepEqual([...point.done], [done]);
    assert.equal(point.trialSeconds, 7);
    assert.deepEqual(
      readSamples(join(record.dir, 'samples.ndjson')).map((s) => s.trial),
      [done],
    );
    assert.ok(existsSync(join(record.dir, 'trials', done)), 'a done trial stays');
    assert.ok(!existsSync(join(record.dir, 'trials', cut)), 'the trial in flight runs again');
    await record.addResume({ at: '2026-12-01T01:00:00.000Z', gitRevision: 'def' });
    assert.equal(RunRecord.open(record.dir).manifest.resumes?.length, 1);
  });

  it('a version-1 run (written up to 80ecdfe: no recordVersion) loads as it is', () => {
    const dir = join(work, 'v1');
    writeRun(dir);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    assert.equal(manifest.recordVersion, undefined, 'the fixture is a version-1 manifest');
    const run = loadRun(dir);
    assert.equal(run.manifest.runId, 'r-demo');
    assert.ok(run.samples.length > 0, 'its samples load');
  });

  it('a run of a newer record version is refused, naming the version and what to use', () => {
    const dir = join(work, 'v-future');
    writeRun(dir);
    const path = join(dir, 'manifest.json');
    writeFileSync(
      path,
      JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), recordVersion: RECORD_VERSION + 1 }),
    );
    assert.throws(
      () => loadRun(dir),
      new RegExp(
        `manifest\\.json: run record version ${RECORD_VERSION + 1}, written by a newer layerlab; this one reads versions 1 to ${RECORD_VERSION}`,
      ),
    );
  });

  it('a damaged manifest or summary is refused naming the file and the field', () => {
    const dir = join(work, 'damaged');
    writeRun(dir);
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ runId: 'r-demo' }));
    assert.throws(() => loadRun(dir), /manifest\.json: lab: Required; the run folder is damaged or not a run/);
    writeRun(dir);
    writeFileSync(join(dir, 'summary.json'), JSON.stringify({ runId: 'r-demo', done: 'all' }));
    assert.throws(() => loadRun(dir), /summary\.json: trials: Required/);
    writeFileSync(join(dir, 'summary.json'), '{"runId": ');
    assert.throws(() => loadRun(dir), /summary\.json: not JSON/);
  });

  it('open refuses a plan that is not a plan', async () => {
    const record = await RunRecord.create(join(work, 'results'), 'quick', FIELDS, PLAN);
    writeFileSync(join(record.dir, 'plan.json'), JSON.stringify({ seed: 1, mode: 'random', trials: [] }));
    assert.throws(() => RunRecord.open(record.dir), /plan\.json: mode: Invalid enum value/);
  });
});
