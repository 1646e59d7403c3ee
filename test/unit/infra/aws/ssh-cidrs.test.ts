import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { embeddedIpv4, parseCidr, sshSources } from '../../../../infra/aws/ssh-cidrs.ts';

/** IPv6 sources that stand for a wide part of IPv4, with the IPv4 range each one means. */
const WIDE_IPV4_AS_IPV6: [cidr: string, standsFor: string][] = [
  ['::ffff:0:0/96', '0.0.0.0/0'],
  ['::ffff:0.0.0.0/96', '0.0.0.0/0'],
  ['::FFFF:0:0/96', '0.0.0.0/0'],
  ['::ffff:0:0:0/96', '0.0.0.0/0'],
  ['::/96', '0.0.0.0/0'],
  ['64:ff9b::/96', '0.0.0.0/0'],
  ['::/64', '0.0.0.0/0'],
  ['::ffff:128.0.0.0/97', '128.0.0.0/1'],
  ['::ffff:10.0.0.0/111', '10.0.0.0/15'],
  ['64:ff9b::c000:0/100', '192.0.0.0/4'],
  ['2001::/32', '0.0.0.0/0'],
];

describe('SSH sources: IPv4 written as IPv6 (finding N10)', () => {
  for (const [cidr, standsFor] of WIDE_IPV4_AS_IPV6) {
    it(`${cidr} is refused like ${standsFor}, naming what it stands for`, () => {
      assert.throws(
        () => sshSources([cidr], false),
        (err: Error) =>
          err.message.includes(`contains ${cidr}`) &&
          err.message.includes(`stands for ${standsFor}`) &&
          err.message.includes('allowOpenSsh'),
        `${cidr} must be refused as ${standsFor}`,
      );
    });
  }

  it('6to4 ranges wider than an IPv4 /16 are refused by the IPv6 minimum already; narrower ones map exactly', () => {
    assert.throws(() => sshSources(['2002::/16'], false), /wider than \/32/);
    const [mapped] = embeddedIpv4(parseCidr('2002:cb00:7100::/40'));
    assert.equal(mapped?.range.text, '203.0.113.0/24');
  });

  it('Teredo inverts the client address: the range it stands for is the inverted one', () => {
    // Client 203.0.113.7 appears as ~203.0.113.7 = 52.255.142.248 in the last 32 bits.
    const [mapped] = embeddedIpv4(parseCidr('2001:0:0:0:0:0:34ff:8ef8/128'));
    assert.equal(mapped?.range.text, '203.0.113.7/32');
  });

  it('narrow IPv4-as-IPv6 sources pass, as their IPv4 equivalents do', () => {
    for (const cidr of [
      '::ffff:203.0.113.7/128',
      '::ffff:10.0.0.0/112',
      '64:ff9b::cb00:7107/128',
      '2002:cb00:7107::/48',
    ]) {
      assert.deepEqual(sshSources([cidr], false).ipv6, [cidr], cidr);
    }
    assert.deepEqual(sshSources(['2001:db8::/48'], false).ipv6, ['2001:db8::/48'], 'ordinary IPv6 is not affected');
  });

  it('allowOpenSsh lets them through, as it does 0.0.0.0/0', () => {
    assert.deepEqual(sshSources(['::ffff:0:0/96'], true).ipv6, ['::ffff:0:0/96']);
  });

  it('IPv4 and IPv4-as-IPv6 sources that together cover all of IPv4 are refused; one gap and they pass', () => {
    // Half of IPv4 as /16s, the other half as IPv4-mapped /112s: each one narrow enough on its own.
    const halves = Array.from({ length: 65536 }, (_, i) =>
      i < 32768 ? `${i >> 8}.${i & 255}.0.0/16` : `::ffff:${i >> 8}.${i & 255}.0.0/112`,
    );
    assert.throws(() => sshSources(halves, false), /IPv4 written as IPv6 together cover 0\.0\.0\.0\/0/);
    const withGap = halves.filter((c) => c !== '::ffff:203.0.0.0/112');
    assert.equal(sshSources(withGap, false).ipv6.length, 32767);
  });
});
