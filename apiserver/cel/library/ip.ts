/**
 * Kubernetes' IP library (`kubernetes.net.ip`, from 1.30): `isIP(string)`, `ip(string)`,
 * `ip.isCanonical(string)`, `string(net.IP)` and the members family, isUnspecified, isLoopback,
 * isLinkLocalMulticast, isLinkLocalUnicast, isGlobalUnicast of `net.IP`.
 *
 * Parsing is strict, as Kubernetes: netip's syntax (no IPv4 leading zeros), no IPv6 zone
 * (`IP address "fe80::1%eth0" with zone value is not allowed`), no IPv4-mapped IPv6 (`IPv4-mapped IPv6
 * address "::ffff:1.2.3.4" is not allowed`); other failures read `IP Address "<s>" parse error during
 * conversion from string: <netip's reason>`.
 *
 * Cost (k8s cost.go): isIP/ip/`ip.isCanonical` traverse the string (`ceil(size * 0.1)`, twice for
 * isCanonical); the members 1 (isGlobalUnicast and string() have no case: 1).
 */
import { CelEvalError } from '../errors.js';
import { CelOpaque, type CelValue } from '../values/value.js';
import type { CelLibrary, Overload } from './library.js';
import { AddrParseError, addrString, is4, is4In6, parseAddr, sameBytes, type Addr } from '../../validation/netip.js';
import { STRING_TRAVERSAL_COST_FACTOR, noSuchOverload, str, traversal } from './support.js';
import { withKubernetesEstimates } from '../cost/kubernetes-estimates.js';

/** A `net.IP` value. */
export class CelIP extends CelOpaque {
  readonly typeName = 'net.IP';
  constructor(readonly addr: Addr) {
    super();
  }
  equals(other: CelOpaque): boolean {
    return other instanceof CelIP && sameBytes(this.addr.bytes, other.addr.bytes);
  }
  /** cel-go size of the value (bytes of the address), used by the cost of containsIP. */
  size(): number {
    return this.addr.bytes.length;
  }
  override toString(): string {
    return addrString(this.addr);
  }
}

/** Kubernetes' strict IP parse; throws `CelEvalError` with Kubernetes' messages. */
export function parseKubernetesIP(raw: string): Addr {
  let addr: Addr;
  try {
    addr = parseAddr(raw);
  } catch (e) {
    if (e instanceof AddrParseError) throw new CelEvalError(`IP Address ${JSON.stringify(raw)} parse error during conversion from string: ${e.message}`);
    throw e;
  }
  if (addr.zone !== '') throw new CelEvalError(`IP address ${JSON.stringify(raw)} with zone value is not allowed`);
  if (is4In6(addr)) throw new CelEvalError(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return addr;
}

const parses = (raw: string): boolean => {
  try {
    parseKubernetesIP(raw);
    return true;
  } catch (e) {
    if (e instanceof CelEvalError) return false;
    throw e;
  }
};

export function toAddr(v: CelValue): Addr {
  if (!(v instanceof CelIP)) throw noSuchOverload();
  return v.addr;
}

const b = (a: Addr, i: number): number => a.bytes[i]!;
const allZero = (a: Addr): boolean => a.bytes.every((x) => x === 0);

export const isLoopback = (a: Addr): boolean => (is4(a) ? b(a, 0) === 127 : a.bytes.subarray(0, 15).every((x) => x === 0) && b(a, 15) === 1);
export const isMulticast = (a: Addr): boolean => (is4(a) ? (b(a, 0) & 0xf0) === 0xe0 : b(a, 0) === 0xff);
export const isLinkLocalMulticast = (a: Addr): boolean =>
  is4(a) ? b(a, 0) === 224 && b(a, 1) === 0 && b(a, 2) === 0 : b(a, 0) === 0xff && (b(a, 1) & 0x0f) === 0x02;
export const isLinkLocalUnicast = (a: Addr): boolean => (is4(a) ? b(a, 0) === 169 && b(a, 1) === 254 : b(a, 0) === 0xfe && (b(a, 1) & 0xc0) === 0x80);
/** Go's `IsGlobalUnicast`: not unspecified, not the IPv4 broadcast, not loopback, multicast or link-local unicast. */
export const isGlobalUnicast = (a: Addr): boolean =>
  !allZero(a) && !(is4(a) && a.bytes.every((x) => x === 255)) && !isLoopback(a) && !isMulticast(a) && !isLinkLocalUnicast(a);

const parseCost = (args: readonly CelValue[]): number => traversal(args[0]!);

const overloads: Overload[] = [
  { signature: 'isIP(string): bool', impl: (s) => parses(str(s)), cost: parseCost },
  { signature: 'ip(string): net.IP', impl: (s) => new CelIP(parseKubernetesIP(str(s))), cost: parseCost },
  {
    signature: 'ip.isCanonical(string): bool',
    impl: (s) => addrString(parseKubernetesIP(str(s))) === s,
    cost: (args) => traversal(args[0]!, 2 * STRING_TRAVERSAL_COST_FACTOR),
  },
  { signature: 'net.IP.family(): int', impl: (ip) => (is4(toAddr(ip)) ? 4n : 6n) },
  { signature: 'net.IP.isUnspecified(): bool', impl: (ip) => allZero(toAddr(ip)) },
  { signature: 'net.IP.isLoopback(): bool', impl: (ip) => isLoopback(toAddr(ip)) },
  { signature: 'net.IP.isLinkLocalMulticast(): bool', impl: (ip) => isLinkLocalMulticast(toAddr(ip)) },
  { signature: 'net.IP.isLinkLocalUnicast(): bool', impl: (ip) => isLinkLocalUnicast(toAddr(ip)) },
  { signature: 'net.IP.isGlobalUnicast(): bool', impl: (ip) => isGlobalUnicast(toAddr(ip)) },
  { signature: 'string(net.IP): string', impl: (ip) => addrString(toAddr(ip)) },
];

export const ipLibrary: CelLibrary = {
  name: 'kubernetes.net.ip',
  since: 30,
  overloads: withKubernetesEstimates(overloads, ['ip']),
  types: ['net.IP'],
  namespaces: ['ip'],
};
