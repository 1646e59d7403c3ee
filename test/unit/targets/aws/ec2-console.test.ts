/**
 * Every AWS SDK client of the controller talks to the lab's region, whatever
 * the operator's shell says (AWS_REGION, the profile): the program creates
 * the hosts in target.aws.region (infra/aws/region.ts), so consoles are read
 * there too. Proven on the wire: an EC2-shaped endpoint on 127.0.0.1 reads
 * the region from the request's SigV4 credential scope.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { type IncomingMessage, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ec2ConsoleReader } from '../../../../lab/targets/aws/ec2-console.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..', '..');

/** GetConsoleOutput's documented response (EC2 query API, XML). */
function consoleOutputXml(instanceId: string, text: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<GetConsoleOutputResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
  <requestId>59dbff89-35bd-4eac-99ed-be587EXAMPLE</requestId>
  <instanceId>${instanceId}</instanceId>
  <timestamp>2026-12-04T18:00:00.000Z</timestamp>
  <output>${Buffer.from(text).toString('base64')}</output>
</GetConsoleOutputResponse>`;
}

describe('the controller’s AWS clients use the lab’s region', () => {
  const seen: { region: string; action: string }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const scope = /Credential=[^/]+\/\d{8}\/([^/]+)\/ec2\/aws4_request/.exec(req.headers.authorization ?? '');
      const params = new URLSearchParams(body);
      seen.push({ region: scope?.[1] ?? '(unsigned)', action: params.get('Action') ?? '' });
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.end(consoleOutputXml(params.get('InstanceId') ?? '', 'booted\n'));
    });
  });
  const saved = { ...process.env };
  before(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_EC2: `http://127.0.0.1:${port}`,
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      // The operator's shell names another region: the lab's must win.
      AWS_REGION: 'us-west-2',
      AWS_DEFAULT_REGION: 'us-west-2',
    });
    // biome-ignore lint/performance/noDelete: assigning undefined would set the string "undefined"
    delete process.env.AWS_PROFILE;
  });
  after(() => {
    server.close();
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  });

  it('console reads (GetConsoleOutput) are signed for the lab’s region', async () => {
    const read = ec2ConsoleReader('ap-south-1');
    assert.equal(await read('i-0abc'), 'booted\n');
    assert.deepEqual(seen, [{ region: 'ap-south-1', action: 'GetConsoleOutput' }]);
  });

  it('every SDK client the controller constructs is given a region', () => {
    // A new client (sweep, verification after destroy) must name the lab's region too.
    const files = readdirSync(join(ROOT, 'lab'), { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.ts'),
    );
    const constructions = files.flatMap((f) => {
      const text = readFileSync(join(ROOT, 'lab', f), 'utf8');
      if (!text.includes('@aws-sdk/')) return [];
      return [...text.matchAll(/new (?:\w+\.)?(\w+Client)\(([^)]*)\)/g)].map((m) => ({
        file: f,
        client: m[1],
        args: m[2],
      }));
    });
    assert.ok(constructions.length >= 1, 'found the console reader’s client');
    for (const c of constructions) assert.match(String(c.args), /\bregion\b/, `${c.file}: new ${c.client}(${c.args})`);
  });
});
