/**
 * IP address parsing as Kubernetes' validation reads endpoint addresses (Go's "sloppy" parser: IPv4
 * octets may carry leading zeros and are read as decimal; an IPv4-mapped IPv6 address counts as IPv4),
 * and the address ranges an endpoint may not use.
 */
import { isIPv6 } from 'node:net';
import { is4In6, parseAddr } from '../../../validation/netip.js';

/** The 16 bytes of an IPv6 address, or the 4 of an IPv4 one (`::ffff:a.b.c.d` included); undefined if neither. */
export function parseIP(text: string): { bytes: number[]; v4: boolean } | undefined {
  const v4 = parseIPv4(text);
  if (v4 !== undefined) return { bytes: v4, v4: true };
  // Node's check (inet_pton) decides what is IPv6. It refuses leading zeros in an embedded IPv4 part
  // (as netip does; Go's sloppy parser would take them), so netip's parser reads all it lets through.
  if (!isIPv6(text) || text.includes('%')) return undefined;
  const addr = parseAddr(text);
  const bytes = Array.from(addr.bytes);
  return is4In6(addr) ? { bytes: bytes.slice(12), v4: true } : { bytes, v4: false };
}

/** Dotted decimal; unlike netip, octets may carry leading zeros (read as decimal). */
function parseIPv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^[0-9]{1,3}$/.test(p))) return undefined;
  const bytes = parts.map(Number);
  return bytes.every((b) => b <= 255) ? bytes : undefined;
}

/** The messages Kubernetes gives an endpoint IP in a range an endpoint may not use (empty if fine). */
export function endpointIPProblems(text: string): string[] {
  const ip = parseIP(text);
  if (ip === undefined) return ['must be a valid IP address'];
  const b = ip.bytes;
  const msgs: string[] = [];
  if (b.every((x) => x === 0)) msgs.push(`may not be unspecified (${text})`);
  const loopback = ip.v4 ? b[0] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1;
  if (loopback) msgs.push('may not be in the loopback range (127.0.0.0/8, ::1/128)');
  const linkLocal = ip.v4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80;
  if (linkLocal) msgs.push('may not be in the link-local range (169.254.0.0/16, fe80::/10)');
  const llMulticast = ip.v4 ? b[0] === 224 && b[1] === 0 && b[2] === 0 : b[0] === 0xff && (b[1]! & 0x0f) === 0x02;
  if (llMulticast) msgs.push('may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)');
  return msgs;
}
