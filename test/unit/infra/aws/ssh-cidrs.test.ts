/**
 * infra/aws/ssh-cidrs.ts: the guard on who may reach SSH parses CIDRs, by
 * numbers, instead of comparing strings (issue 12 finding 7, issue 35 N10),
 * and the CLI applies it before anything starts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { coversRange, embeddedIpv4, parseCidr, sshSources } from '../../../../infra/aws/ssh-cidrs.ts';

const work = mkdtempSync(join(tmpdir(), 'layerlab-ssh-cidrs-'));
after(() => rmSync(work, { recursive: true, force: true }));

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

/** The bypasses the review found: each passed the string comparison. */
const BYPASSES: string[][] = [
  ['1.2.3.4/0'],
  ['0.0.0.0/00'],
  ['::0/0'],
  ['0::/0'],
  ['0.0.0.0/1', '128.0.0.0/1'],
  ['2000::/3'],
];

describe('finding 7: the SSH CIDR guard parses CIDRs', () => {
  it('refuses every bypass the review found, unless allowOpenSsh', () => {
    for (const cidrs of BYPASSES) {
      assert.throws(() => sshSources(cidrs, false), /layerlab:sshCidrs/, `${cidrs.join(' + ')} must be refused`);
    }
  });

  it('a CIDR with bits past its prefix or a padded prefix is refused as malformed, naming it, even with allowOpenSsh', () => {
    assert.throws(() => sshSources(['1.2.3.4/0'], true), /"1\.2\.3\.4\/0" is not a CIDR.*bits set past \/0/);
    assert.throws(() => sshSources(['203.0.113.7/24'], true), /"203\.0\.113\.7\/24" is not a CIDR/);
    assert.throws(() => sshSources(['0.0.0.0/00'], true), /"0\.0\.0\.0\/00" is not a CIDR/);
  });

  it('malformed values are refused with a message naming the value', () => {
    for (const bad of [
      'my-laptop',
      '203.0.113.7',
      '10.0.0.300/32',
      '203.0.113.7/33',
      '203.0.113.0/+24',
      '2001:db8::1/129',
      'fe80::1%eth0/128',
      '2001:db8:::1/128',
      '',
    ]) {
      assert.throws(
        () => sshSources([bad], true),
        (err: Error) => err.message.includes(`"${bad}" is not a CIDR`),
        `${JSON.stringify(bad)} must be refused by name`,
      );
    }
  });

  it('prefixes shorter than the minimum (/16 IPv4, /32 IPv6) are refused unless allowOpenSsh', () => {
    assert.throws(() => sshSources(['10.0.0.0/15'], false), /10\.0\.0\.0\/15 \(wider than \/16/);
    assert.throws(() => sshSources(['2001:db8::/31'], false), /2001:db8::\/31 \(wider than \/32/);
    assert.deepEqual(sshSources(['10.0.0.0/16', '2001:db8::/32'], false), {
      ipv4: ['10.0.0.0/16'],
      ipv6: ['2001:db8::/32'],
    });
    assert.deepEqual(sshSources(['10.0.0.0/15'], true).ipv4, ['10.0.0.0/15']);
  });

  it('a set of narrow CIDRs that together cover all of IPv4 is refused; one gap and it passes', () => {
    const all16 = Array.from({ length: 65536 }, (_, i) => `${i >> 8}.${i & 255}.0.0/16`);
    assert.throws(() => sshSources(all16, false), /together cover 0\.0\.0\.0\/0/);
    const withGap = all16.filter((c) => c !== '203.0.0.0/16');
    assert.equal(sshSources(withGap, false).ipv4.length, 65535);
  });

  it('the set cover is merged by numbers, also for IPv6 (2000::/3, or all of ::/0)', async () => {
    const ranges = (list: string[]) => list.map(parseCidr);
    const global = parseCidr('2000::/3');
    assert.equal(coversRange(ranges(['2000::/4', '3000::/4']), global.first, global.last), true);
    assert.equal(coversRange(ranges(['::/0']), global.first, global.last), true);
    assert.equal(coversRange(ranges(['2000::/4', '3000::/5']), global.first, global.last), false);
    const v4 = parseCidr('0.0.0.0/0');
    assert.equal(coversRange(ranges(['128.0.0.0/1', '0.0.0.0/2', '64.0.0.0/2']), v4.first, v4.last), true);
    assert.equal(coversRange(ranges(['0.0.0.0/2', '128.0.0.0/1']), v4.first, v4.last), false);
  });

  it('ordinary sources pass and are split by family', () => {
    assert.deepEqual(sshSources(['203.0.113.7/32', '2001:DB8::1/128', '::ffff:203.0.113.7/128'], false), {
      ipv4: ['203.0.113.7/32'],
      ipv6: ['2001:db8::1/128', '::ffff:203.0.113.7/128'],
    });
  });

  describe('the CLI refuses them before anything starts (exit 2)', () => {
    const BIN = resolve(import.meta.dirname, '..', '..', '..', '..', 'bin', 'layerlab.js');
    const QUICK = resolve(import.meta.dirname, '..', '..', '..', '..', 'labs', 'quick.yaml');
    // node's own folder only: no `pulumi`, so nothing could start even if the check let it through.
    const PATH = resolve(process.execPath, '..');
    const state = join(work, 'cli-state');
    function layerlab(env: Record<string, string>, ...args: string[]) {
      return spawnSync(process.execPath, [BIN, ...args], {
        cwd: work,
        encoding: 'utf8',
        env: { ...process.env, PATH, LAYERLAB_HOME: state, LAYERLAB_RESULTS: join(work, 'cli-results'), ...env },
      });
    }

    it('--ssh-cidr values that open SSH are named, with exit 2, and nothing is created', () => {
      // A few of them (each CLI start costs seconds); the function and the program get them all above.
      for (const cidrs of [['1.2.3.4/0'], ['0.0.0.0/1', '128.0.0.0/1'], ['2000::/3']]) {
        const r = layerlab({}, 'up', '--target', 'aws', '--lab', QUICK, '--ssh-cidr', ...cidrs);
        assert.equal(r.status, 2, `${cidrs.join(' ')}: ${r.stderr}`);
        assert.ok(r.stderr.includes('--ssh-cidr: layerlab:sshCidrs'), `${cidrs.join(' ')}: ${r.stderr}`);
        assert.ok(r.stderr.includes(cidrs[0] ?? ''), `names ${cidrs[0]}: ${r.stderr}`);
        assert.doesNotMatch(r.stderr, /Pulumi CLI/, 'bad input is refused before prerequisites are looked at');
      }
      const viaEnv = layerlab(
        { LAYERLAB_SSH_CIDRS: '0.0.0.0/1,128.0.0.0/1' },
        'all',
        '--target',
        'aws',
        '--lab',
        QUICK,
      );
      assert.equal(viaEnv.status, 2, viaEnv.stderr);
      assert.match(viaEnv.stderr, /0\.0\.0\.0\/1/);
      assert.ok(!existsSync(join(state, 'labs')), 'no lab state was created');
    });

    it('LAYERLAB_ALLOW_OPEN_SSH=true lets a wide CIDR through to the next check', () => {
      const r = layerlab(
        { LAYERLAB_ALLOW_OPEN_SSH: 'true' },
        'up',
        '--target',
        'aws',
        '--lab',
        QUICK,
        '--ssh-cidr',
        '::/0',
      );
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /needs the Pulumi CLI/);
    });
  });
});
