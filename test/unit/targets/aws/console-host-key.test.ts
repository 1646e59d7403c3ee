/**
 * Issue 12, finding 11: hosts print their SSH host key to the serial console
 * and the controller pins it from there. The parser on consoles modelled on
 * real ones (console-fixture.ts), and the wait for the key with a fake clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import ssh2 from 'ssh2';
import {
  hostKeyBlocks,
  pinnedHostKeyFromConsole,
  waitForHostKey,
} from '../../../../lab/targets/aws/console-host-key.ts';
import { debianConsole, flatcarConsole, hostKeyLine } from './console-fixture.ts';

describe('the host key from the serial console', () => {
  it('the console parser finds the ed25519 key in a Debian console (syslog prefixes, CRLF, other key types)', async () => {
    const key = hostKeyLine();
    const ecdsa = ssh2.utils.generateKeyPairSync('ecdsa', { bits: 256 }).public.trim();
    const text = debianConsole(key, { extraKeys: [ecdsa] });
    const where = { host: 'h0', instanceId: 'i-0abc' };
    assert.equal(pinnedHostKeyFromConsole(text, where), key);
    assert.deepEqual(hostKeyBlocks(text), [[ecdsa, key]]);
    assert.equal(pinnedHostKeyFromConsole(flatcarConsole(key), where), key, 'plain lines amid kernel messages');
  });

  it('no pin from an incomplete, ambiguous or malformed console', async () => {
    const where = { host: 'h0', instanceId: 'i-0abc' };
    const key = hostKeyLine();
    assert.equal(pinnedHostKeyFromConsole('', where), undefined, 'nothing printed yet');
    assert.equal(pinnedHostKeyFromConsole(debianConsole(key, { complete: false }), where), undefined, 'no END yet');
    // A key line outside the markers is not a key.
    assert.equal(pinnedHostKeyFromConsole(`${hostKeyLine()}\n`, where), undefined);
    // Same key printed twice (a reboot) is fine; two different keys are refused.
    assert.equal(pinnedHostKeyFromConsole(debianConsole(key) + flatcarConsole(key), where), key);
    assert.throws(
      () => pinnedHostKeyFromConsole(flatcarConsole(hostKeyLine()) + debianConsole(key), where),
      /\[host=h0 phase=host key\] the serial console of i-0abc shows 2 different ssh-ed25519 keys; refusing/,
    );
    // A line cut short (or mixed with kernel output) is not well-formed: no pin.
    const [type, blob = ''] = key.split(' ');
    assert.throws(
      () => pinnedHostKeyFromConsole(flatcarConsole(`${type} ${blob.slice(0, 40)}`), where),
      /no well-formed ssh-ed25519 key/,
    );
  });

  it('waiting polls the console until the key appears; a timeout names the host; no access stops at once', async () => {
    const key = hostKeyLine();
    const screens = ['', debianConsole(key, { complete: false }), debianConsole(key)];
    let reads = 0;
    let clock = 0;
    const fake = {
      sleep: async (ms: number) => {
        clock += ms;
      },
      now: () => clock,
    };
    const got = await waitForHostKey({
      host: 'h0',
      instanceId: 'i-0abc',
      read: async () => screens[Math.min(reads++, screens.length - 1)] ?? '',
      timeoutMs: 60_000,
      pollMs: 10_000,
      ...fake,
    });
    assert.equal(got, key);
    assert.equal(reads, 3);

    clock = 0;
    await assert.rejects(
      waitForHostKey({
        host: 'h1',
        instanceId: 'i-0def',
        read: async () => 'booting',
        timeoutMs: 30_000,
        pollMs: 10_000,
        ...fake,
      }),
      /\[host=h1 phase=host key\] host h1 \(i-0def\) printed no SSH host key to its serial console within 30 s/,
    );
    const denied = Object.assign(new Error('You are not authorized to perform this operation.'), {
      name: 'UnauthorizedOperation',
    });
    let tries = 0;
    await assert.rejects(
      waitForHostKey({
        host: 'h2',
        instanceId: 'i-0123',
        read: async () => {
          tries++;
          throw denied;
        },
        timeoutMs: 60_000,
        pollMs: 10_000,
        ...fake,
      }),
      /cannot read the serial console of i-0123 .*ec2:GetConsoleOutput/,
    );
    assert.equal(tries, 1, 'no retry on a permission error');
  });
});
