/**
 * A service IP range (`--service-cluster-ip-range`, a ServiceCIDR's CIDR) as Kubernetes' IP allocator sees
 * it: the addresses between the network address and (IPv4) the broadcast address, numbered from 0 (the
 * network address + 1, which the `kubernetes` Service takes). Ranges larger than 2^16 addresses (IPv6)
 * are used up to 2^16, as one bitmap record must stay small.
 *
 * Addresses are handled as bigints; `formatIP` writes the canonical text (IPv4 dotted decimal, IPv6 per
 * RFC 5952), which is also an IPAddress object's name.
 */
import { addrString } from '../../../../validation/netip.js';
import { parseIP } from '../../discovery/endpoint-ip.js';

export type IPFamily = 'IPv4' | 'IPv6';

const MAX_RANGE = 1n << 16n;

export interface ServiceIPRange {
  readonly family: IPFamily;
  /** The CIDR as given, normalized to its network address (`10.0.0.0/24`). */
  readonly cidr: string;
  /** The network address. */
  readonly network: bigint;
  readonly prefix: number;
  /** How many addresses can be allocated (index 0 .. size-1). */
  readonly size: number;
}

/** The address as a bigint and its family; undefined when `text` is not an IP. */
export function ipToBig(text: string): { value: bigint; family: IPFamily } | undefined {
  const ip = parseIP(text);
  if (ip === undefined) return undefined;
  let v = 0n;
  for (const b of ip.bytes) v = (v << 8n) | BigInt(b);
  return { value: v, family: ip.v4 ? 'IPv4' : 'IPv6' };
}

/** The canonical text of an address (netip's: IPv4 dotted decimal, IPv6 per RFC 5952). */
export function formatIP(value: bigint, family: IPFamily): string {
  const bytes = new Uint8Array(family === 'IPv4' ? 4 : 16);
  for (let i = bytes.length - 1, v = value; i >= 0; i--, v >>= 8n) bytes[i] = Number(v & 0xffn);
  return addrString({ bytes, zone: '' });
}

/** Parses `a.b.c.d/n` or `v6/n`; undefined when it is not a CIDR or leaves nothing to allocate. */
export function parseServiceRange(text: string): ServiceIPRange | undefined {
  const slash = text.indexOf('/');
  if (slash < 0 || !/^\d{1,3}$/.test(text.slice(slash + 1))) return undefined;
  const ip = ipToBig(text.slice(0, slash));
  if (ip === undefined) return undefined;
  const bits = ip.family === 'IPv4' ? 32 : 128;
  const prefix = Number(text.slice(slash + 1));
  if (prefix > bits) return undefined;
  const hostBits = BigInt(bits - prefix);
  const network = (ip.value >> hostBits) << hostBits;
  const total = 1n << hostBits;
  // Neither the network address nor (IPv4) the broadcast address is allocated.
  let usable = total - (ip.family === 'IPv4' ? 2n : 1n);
  if (usable > MAX_RANGE) usable = MAX_RANGE;
  if (usable <= 0n) return undefined;
  return { family: ip.family, cidr: `${formatIP(network, ip.family)}/${prefix}`, network, prefix, size: Number(usable) };
}

/** The address of allocation index `i`. */
export const ipAt = (r: ServiceIPRange, i: number): string => formatIP(r.network + 1n + BigInt(i), r.family);

/** The index of `ip` in the range, or undefined when it is outside (or of the other family). */
export function indexOf(r: ServiceIPRange, ip: string): number | undefined {
  const v = ipToBig(ip);
  if (v === undefined || v.family !== r.family) return undefined;
  const i = v.value - r.network - 1n;
  return i >= 0n && i < BigInt(r.size) ? Number(i) : undefined;
}

/** The canonical text of an IP (`010.0.0.1` -> `10.0.0.1`, `2001:DB8::0:1` -> `2001:db8::1`). */
export function canonicalIP(text: string): string | undefined {
  const v = ipToBig(text);
  return v === undefined ? undefined : formatIP(v.value, v.family);
}

/**
 * Where dynamic allocation starts (Kubernetes' ServiceIPStaticSubrange / ServiceNodePortStaticSubrange):
 * random values come from the upper band first, so the lower band stays for values users choose.
 * IPs: min(max(16, size/16), 256); node ports: min(max(16, size/32), 128).
 */
export function staticBandSize(size: number, divisor: 16 | 32, cap: number): number {
  if (size < 16) return 0;
  return Math.min(Math.max(16, Math.floor(size / divisor)), cap);
}
