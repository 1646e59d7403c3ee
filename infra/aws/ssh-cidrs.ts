/** SSH ingress sources, checked before any resource is declared. */

const OPEN = new Set(['0.0.0.0/0', '::/0']);
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;
const IPV6 = /^[0-9a-f:]+\/(\d{1,3})$/i;

export interface SshSources {
  ipv4: string[];
  ipv6: string[];
}

/**
 * Splits the operator's CIDRs by family. Refuses an empty list, malformed
 * entries, and the whole internet unless `allowOpenSsh` says so explicitly.
 */
export function sshSources(cidrs: readonly string[], allowOpenSsh: boolean): SshSources {
  if (!cidrs.length) {
    throw new Error(
      'layerlab:sshCidrs is empty: SSH ingress needs the operator CIDR(s), e.g. `pulumi config set --path layerlab:sshCidrs[0] 203.0.113.7/32`',
    );
  }
  const out: SshSources = { ipv4: [], ipv6: [] };
  for (const cidr of cidrs) {
    const v4 = IPV4.exec(cidr);
    if (v4) {
      const octets = v4.slice(1, 5).map(Number);
      if (octets.some((o) => o > 255) || Number(v4[5]) > 32)
        throw new Error(`layerlab:sshCidrs: ${cidr} is not an IPv4 CIDR`);
      out.ipv4.push(cidr);
    } else if (IPV6.test(cidr) && Number(cidr.split('/')[1]) <= 128) {
      out.ipv6.push(cidr.toLowerCase());
    } else {
      throw new Error(`layerlab:sshCidrs: "${cidr}" is not a CIDR (expected e.g. 203.0.113.7/32)`);
    }
    if (OPEN.has(cidr) && !allowOpenSsh) {
      throw new Error(
        `layerlab:sshCidrs contains ${cidr}, which opens SSH to the whole internet; use your own address (/32), or set layerlab:allowOpenSsh true if you really mean it`,
      );
    }
  }
  return out;
}
