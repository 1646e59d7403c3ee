/**
 * SSH ingress sources, checked before any resource is declared: by the CLI
 * (exit 2 before anything starts) and again by the Pulumi program (for plain
 * `pulumi up`). CIDRs are parsed as numbers, never compared as strings:
 * `0.0.0.0/00`, `::0/0` or `0.0.0.0/1` + `128.0.0.0/1` are all the whole internet,
 * and so is `::ffff:0:0/96` (all of IPv4, written as IPv6).
 */
import { isIPv4, isIPv6 } from 'node:net';

/**
 * The widest single source allowed without `allowOpenSsh`. IPv4 /16 (65,536
 * addresses) still fits a campus or corporate network; anything wider is a
 * large share of an ISP. IPv6 /32 is one ISP's whole allocation (a site gets a
 * /48), so a corporate /40 or /48 passes and a regional registry block does not.
 */
export const MIN_PREFIX = { ipv4: 16, ipv6: 32 } as const;

type Family = keyof typeof MIN_PREFIX;

interface ParsedCidr {
  text: string;
  family: Family;
  first: bigint;
  last: bigint;
  prefix: number;
}

export interface SshSources {
  ipv4: string[];
  ipv6: string[];
}

const BITS: Record<Family, number> = { ipv4: 32, ipv6: 128 };

/**
 * The spaces a set of sources must not cover: all of IPv4, and IPv6's global
 * unicast space 2000::/3 (what "the whole internet" is on IPv6; covering ::/0
 * covers it too).
 */
const WHOLE_INTERNET: Record<Family, { first: bigint; last: bigint; text: string }> = {
  ipv4: { first: 0n, last: (1n << 32n) - 1n, text: '0.0.0.0/0' },
  ipv6: { first: 0x2n << 124n, last: (0x4n << 124n) - 1n, text: '2000::/3' },
};

/**
 * IPv6 ranges whose addresses stand for IPv4 ones: a source written there
 * reaches (through a translator, a tunnel or a dual-stack socket) the IPv4
 * addresses embedded in it, so it is judged as those IPv4 addresses.
 * `offset` is where the 32 IPv4 bits start; Teredo stores the client's
 * address inverted (RFC 4380). The /96 forms: RFC 4291 2.5.5 (mapped,
 * compatible), RFC 2765 (translated), RFC 6052 (NAT64's well-known prefix);
 * 6to4: RFC 3056.
 */
const IPV4_EMBEDDINGS: readonly { name: string; cidr: string; offset: number; inverted?: boolean }[] = [
  { name: 'IPv4-mapped', cidr: '::ffff:0:0/96', offset: 96 },
  { name: 'IPv4-translated', cidr: '::ffff:0:0:0/96', offset: 96 },
  { name: 'IPv4-compatible', cidr: '::/96', offset: 96 },
  { name: 'NAT64', cidr: '64:ff9b::/96', offset: 96 },
  { name: '6to4', cidr: '2002::/16', offset: 16 },
  { name: 'Teredo', cidr: '2001::/32', offset: 96, inverted: true },
];

function ipv4Text(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

function ipv4Value(address: string): bigint {
  return address.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

/** An IPv6 address (already valid per `net.isIPv6`, no zone) as a 128-bit number. */
function ipv6Value(address: string): bigint {
  let text = address.toLowerCase();
  // A trailing dotted quad (::ffff:192.0.2.1) is two 16-bit groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const v4 = ipv4Value(dotted[1]);
    text = `${text.slice(0, dotted.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array(missing).fill('0'), ...tailGroups];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}

function notACidr(cidr: string, why: string): Error {
  return new Error(
    `layerlab:sshCidrs: "${cidr}" is not a CIDR (${why}; expected e.g. 203.0.113.7/32 or 2001:db8::/48)`,
  );
}

/** Parses one CIDR; throws naming the value when it is not one, or has bits set past its prefix. */
export function parseCidr(input: string): ParsedCidr {
  const text = input.trim();
  const slash = text.indexOf('/');
  if (slash < 0) throw notACidr(input, 'no /prefix');
  const address = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  const family: Family | undefined = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined;
  if (!family || address.includes('%')) throw notACidr(input, `${JSON.stringify(address)} is not an IP address`);
  // Decimal without leading zeros: "/00" or "/+8" may mean something else to another parser.
  if (!/^(0|[1-9]\d{0,2})$/.test(prefixText) || Number(prefixText) > BITS[family]) {
    throw notACidr(input, `the prefix must be a number from 0 to ${BITS[family]}`);
  }
  const prefix = Number(prefixText);
  const value = family === 'ipv4' ? ipv4Value(address) : ipv6Value(address);
  const hostBits = BigInt(BITS[family] - prefix);
  const first = (value >> hostBits) << hostBits;
  if (first !== value) {
    // 1.2.3.4/0 reads like "one address" but is the whole internet: say what it really is.
    throw notACidr(
      input,
      `it has address bits set past /${prefix}, so it stands for a whole network, not that address`,
    );
  }
  return { text, family, first, last: first + (1n << hostBits) - 1n, prefix };
}

/** Whether the union of the ranges covers [first, last] completely. */
export function coversRange(ranges: readonly ParsedCidr[], first: bigint, last: bigint): boolean {
  let next = first;
  for (const r of [...ranges].sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0))) {
    if (r.first > next) return false;
    if (r.last >= next) next = r.last + 1n;
    if (next > last) return true;
  }
  return next > last;
}

/** An IPv4 range an IPv6 source stands for, and through which embedding. */
interface EmbeddedIpv4 {
  range: ParsedCidr;
  via: string;
}

/**
 * The IPv4 addresses an IPv6 CIDR stands for, per embedding range it
 * overlaps: `::ffff:0:0/96` is all of IPv4, `::ffff:10.0.0.0/112` is
 * 10.0.0.0/16, and a CIDR that contains a whole embedding range (`::/64`)
 * covers all of IPv4 through it.
 */
export function embeddedIpv4(cidr: ParsedCidr): EmbeddedIpv4[] {
  if (cidr.family !== 'ipv6') return [];
  const found: EmbeddedIpv4[] = [];
  for (const embedding of IPV4_EMBEDDINGS) {
    const space = parseCidr(embedding.cidr);
    if (cidr.last < space.first || cidr.first > space.last) continue;
    // Two CIDR blocks that overlap are nested: the intersection is the narrower one.
    const inner = cidr.prefix >= space.prefix ? cidr : space;
    const shift = BigInt(128 - embedding.offset - 32);
    const mask = (1n << 32n) - 1n;
    let first = (inner.first >> shift) & mask;
    let last = (inner.last >> shift) & mask;
    if (embedding.inverted) [first, last] = [~last & mask, ~first & mask];
    const prefix = Math.min(Math.max(inner.prefix - embedding.offset, 0), 32);
    found.push({
      range: { text: `${ipv4Text(first)}/${prefix}`, family: 'ipv4', first, last, prefix },
      via: `${embedding.name} ${embedding.cidr}`,
    });
  }
  return found;
}

function openSshError(what: string): Error {
  return new Error(
    `layerlab:sshCidrs ${what}, which opens SSH to the whole internet or a large part of it; use your own address (/32), ` +
      'or set layerlab:allowOpenSsh true (CLI: LAYERLAB_ALLOW_OPEN_SSH=true) if you really mean it',
  );
}

/**
 * Splits the operator's CIDRs by family. Refuses an empty list, malformed
 * entries, and — unless `allowOpenSsh` says so explicitly — any source wider
 * than MIN_PREFIX and any set that together covers the whole internet.
 */
export function sshSources(cidrs: readonly string[], allowOpenSsh: boolean): SshSources {
  if (!cidrs.length) {
    throw new Error(
      'layerlab:sshCidrs is empty: SSH ingress needs the operator CIDR(s), e.g. `pulumi config set --path layerlab:sshCidrs[0] 203.0.113.7/32`',
    );
  }
  const parsed = cidrs.map(parseCidr);
  if (!allowOpenSsh) {
    for (const c of parsed) {
      if (c.prefix < MIN_PREFIX[c.family]) {
        throw openSshError(`contains ${c.text} (wider than /${MIN_PREFIX[c.family]}, the widest allowed)`);
      }
      // IPv4 written as IPv6 is judged as IPv4: ::ffff:0:0/96 is 0.0.0.0/0, not "a narrow IPv6 /96".
      for (const { range, via } of embeddedIpv4(c)) {
        if (range.prefix < MIN_PREFIX.ipv4) {
          throw openSshError(
            `contains ${c.text} (${via}: it stands for ${range.text}, wider than /${MIN_PREFIX.ipv4}, the widest allowed)`,
          );
        }
      }
    }
    for (const family of ['ipv4', 'ipv6'] as const) {
      const whole = WHOLE_INTERNET[family];
      const ofFamily = parsed.filter((c) => c.family === family);
      // The IPv4 that IPv6 sources stand for counts towards covering IPv4.
      const standIns = family === 'ipv4' ? parsed.flatMap((c) => embeddedIpv4(c).map((e) => e.range)) : [];
      const ranges = [...ofFamily, ...standIns];
      if (ranges.length && coversRange(ranges, whole.first, whole.last)) {
        const named = [...ofFamily.map((c) => c.text), ...(standIns.length ? ['IPv4 written as IPv6'] : [])];
        throw openSshError(`${named.join(' + ')} together cover ${whole.text}`);
      }
    }
  }
  return {
    ipv4: parsed.filter((c) => c.family === 'ipv4').map((c) => c.text),
    ipv6: parsed.filter((c) => c.family === 'ipv6').map((c) => c.text.toLowerCase()),
  };
}
