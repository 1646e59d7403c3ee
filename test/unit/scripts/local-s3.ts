/**
 * An S3-compatible server for tests: s3rver (a devDependency) in this
 * process, on 127.0.0.1 and an ephemeral port, storing into a temp folder
 * that close() removes. Its credentials are s3rver's fixed S3RVER/S3RVER.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string }[];
}) => S3rverInstance;

// s3rver ships no types: its constructor as this file uses it.
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

export interface LocalS3 {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  port: number;
  close(): Promise<void>;
}

export async function startLocalS3(buckets: readonly string[]): Promise<LocalS3> {
  const directory = mkdtempSync(join(tmpdir(), 'layerlab-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The environment that points the aws CLI at it, and at nothing of the user's. */
export function localS3Env(home: string): Record<string, string> {
  return {
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_REGION: 'us-east-1',
    AWS_CONFIG_FILE: join(home, 'aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(home, 'aws-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_PAGER: '',
  };
}
