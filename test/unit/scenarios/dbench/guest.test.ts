/**
 * lab/scenarios/dbench/guest.sh in bash on this machine, against the stand-in
 * Engine API (guest-sandbox.ts) and a docker CLI that only logs its calls: a
 * trial on the default path starts no docker CLI (half a second to a second
 * each under TCG), and leaves neither its container nor its volume behind,
 * whether dbench succeeds or fails.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import { guestSandbox } from '../../guest-sandbox.ts';

const box = guestSandbox('dbench-guest', { scenarios: ['dbench'] });
box.fakeEngineApi();
box.fake('docker', 'printf \'docker %s\\n\' "$*" >> "$FAKE/calls"\n');
const fake = join(box.root, 'fake');
const out = join(box.root, 'out');

/** dbench's stdout as the Engine API's log stream: one stdout frame. */
function stdoutFrame(text: string): Buffer {
  const body = Buffer.from(text);
  const head = Buffer.alloc(8);
  head.writeUInt8(1, 0);
  head.writeUInt32BE(body.length, 4);
  return Buffer.concat([head, body]);
}

function trial() {
  const r = spawnSync('bash', [box.script('dbench')], {
    encoding: 'utf8',
    env: {
      PATH: box.path,
      FAKE: fake,
      LL_OUT: out,
      LL_MOUNT: 'volume',
      LL_TRIAL: 'r1-a-dbench-volume',
      LL_LAB: 'lab1',
      LL_ENGINE: 'docker',
      LL_IMAGE_DBENCH: 'dbench:tag',
      LL_P_CLIENTS: '4',
      LL_P_DURATION: '10',
      LL_P_LOADFILE: 'client.txt',
    },
  });
  const calls = existsSync(join(fake, 'calls')) ? readFileSync(join(fake, 'calls'), 'utf8').trim().split('\n') : [];
  return { code: r.status, stderr: r.stderr, calls };
}

describe('lab/scenarios/dbench/guest.sh through the Engine API', () => {
  beforeEach(() => {
    for (const dir of [fake, out]) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir);
    }
  });

  for (const status of [0, 1]) {
    it(`dbench exits ${status}: its output kept, no docker CLI, container and volume removed`, () => {
      writeFileSync(join(fake, 'exit-status'), String(status));
      writeFileSync(join(fake, 'logs.1'), stdoutFrame('Throughput 12.5 MB/sec\n'));
      const r = trial();
      assert.equal(r.code, status, r.stderr);
      assert.equal(readFileSync(join(out, 'dbench.txt'), 'utf8'), 'Throughput 12.5 MB/sec\n', "dbench's stdout");
      assert.equal(readFileSync(join(out, 'dbench.stderr'), 'utf8'), '', 'its stderr, empty');
      assert.deepEqual(
        r.calls.filter((c) => !c.startsWith('curl ')),
        [],
        `no docker CLI: ${r.calls.join(' | ')}`,
      );
      assert.ok(!existsSync(join(fake, 'container')), 'the container is removed');
      assert.ok(!existsSync(join(fake, 'volume-ll-r1-a-dbench-volume')), 'the volume is removed');
      assert.match(r.calls.at(-1) ?? '', /-X DELETE http:\/\/docker\/volumes\/ll-r1-a-dbench-volume\?force=true$/);
    });
  }
});
