import type { ConsoleReader } from './console-host-key.js';

/**
 * Reads an instance's serial console through EC2 GetConsoleOutput, with the
 * same credentials Pulumi uses (the SDK's default chain). `Latest` asks for
 * the live output (Nitro instances); older types only have the buffered copy.
 * The SDK is loaded on first use: the local target never needs it.
 */
export function ec2ConsoleReader(region: string): ConsoleReader {
  let client: import('@aws-sdk/client-ec2').EC2Client | undefined;
  return async (instanceId) => {
    const sdk = await import('@aws-sdk/client-ec2');
    if (!client) client = new sdk.EC2Client({ region });
    const ec2 = client;
    const read = (latest: boolean) =>
      ec2.send(new sdk.GetConsoleOutputCommand({ InstanceId: instanceId, Latest: latest }));
    const out = await read(true).catch((err: Error) => {
      if (err.name === 'UnsupportedOperation') return read(false);
      throw err;
    });
    return Buffer.from(out.Output ?? '', 'base64').toString('utf8');
  };
}
