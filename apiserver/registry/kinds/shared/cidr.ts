/**
 * CIDR parsing as Kubernetes' `netutils.ParseCIDRSloppy` accepts it (Go's `net.ParseCIDR`, except that
 * IPv4 octets may carry leading zeros, as older releases allowed). Only the IP family is returned:
 * that is all node and service range validation needs.
 */
import { isIPv6 } from 'node:net';

const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const prefixLen = /^\d{1,3}$/;

/** `4`, `6`, or undefined when `text` is not `<ip>/<prefix length>`. */
export function cidrFamily(text: string): 4 | 6 | undefined {
  const slash = text.indexOf('/');
  if (slash < 0 || !prefixLen.test(text.slice(slash + 1))) return undefined;
  const ip = text.slice(0, slash);
  const bits = Number(text.slice(slash + 1));
  const m = ipv4.exec(ip);
  if (m !== null) return m.slice(1).every((o) => Number(o) <= 255) && bits <= 32 ? 4 : undefined;
  // Zones (`fe80::1%eth0`) are not part of a CIDR.
  return !ip.includes('%') && isIPv6(ip) && bits <= 128 ? 6 : undefined;
}
