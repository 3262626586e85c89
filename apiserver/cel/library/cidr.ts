/**
 * Kubernetes' CIDR library (`kubernetes.net.cidr`, from 1.30): `isCIDR(string)`, `cidr(string)`,
 * `string(net.CIDR)` and the members containsIP (string or IP), containsCIDR (string or CIDR), ip,
 * masked and prefixLength of `net.CIDR`.
 *
 * Parsing is netip's `ParsePrefix` (host bits may be set: `cidr('10.0.0.1/8').ip()` is 10.0.0.1,
 * `.masked()` is 10.0.0.0/8), refusing zones and IPv4-mapped IPv6 addresses; errors read `network address
 * parse error during conversion from string: network address parse error during conversion from string:
 * <netip's reason>` (Kubernetes' cidr_test.go: the prefix is there twice) and, for an IPv4-mapped address,
 * `network address parse error during conversion from string: IPv4-mapped IPv6 address "<s>" is not allowed`. Containment never crosses families.
 *
 * Cost (k8s cost.go), with size(CIDR) = ceil(prefix bits / 8): containsIP `ceil(2 * size * 0.1)`,
 * containsCIDR that plus `ceil(size * 0.1) + 1`, each plus the argument's traversal for the string
 * overloads; cidr/isCIDR the string traversal; the accessors 1.
 */
import { CelEvalError } from '../errors.js';
import { CelOpaque, type CelValue } from '../values/value.js';
import { CelIP, parseKubernetesIP, toAddr } from './ip.js';
import type { CelLibrary, Overload } from './library.js';
import { AddrParseError, addrString, is4In6, maskAddr, parsePrefix, prefixContains, sameBytes, type Prefix } from '../../validation/netip.js';
import { STRING_TRAVERSAL_COST_FACTOR, actualSize, noSuchOverload, str, traversal } from './support.js';
import { withKubernetesEstimates } from '../cost/kubernetes-estimates.js';

/** A `net.CIDR` value. */
export class CelCIDR extends CelOpaque {
  readonly typeName = 'net.CIDR';
  constructor(readonly prefix: Prefix) {
    super();
  }
  equals(other: CelOpaque): boolean {
    return other instanceof CelCIDR && other.prefix.bits === this.prefix.bits && sameBytes(this.prefix.addr.bytes, other.prefix.addr.bytes);
  }
  size(): number {
    return Math.ceil(this.prefix.bits / 8);
  }
  override toString(): string {
    return `${addrString(this.prefix.addr)}/${this.prefix.bits}`;
  }
}

const CIDR_PARSE_ERROR = 'network address parse error during conversion from string: ';

export function parseKubernetesCIDR(raw: string): Prefix {
  let p: Prefix;
  try {
    p = parsePrefix(raw);
  } catch (e) {
    // Kubernetes wraps its parser's error (already prefixed) once more: the prefix appears twice.
    if (e instanceof AddrParseError) throw new CelEvalError(`${CIDR_PARSE_ERROR}${CIDR_PARSE_ERROR}${e.message}`);
    throw e;
  }
  if (is4In6(p.addr)) throw new CelEvalError(`${CIDR_PARSE_ERROR}IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return p;
}

function toPrefix(v: CelValue): Prefix {
  if (!(v instanceof CelCIDR)) throw noSuchOverload();
  return v.prefix;
}

function containsCIDR(p: Prefix, other: Prefix): boolean {
  if (p.addr.bytes.length !== other.addr.bytes.length) return false;
  return p.bits <= other.bits && sameBytes(maskAddr(p.addr, p.bits).bytes, maskAddr(other.addr, p.bits).bytes);
}

const f = STRING_TRAVERSAL_COST_FACTOR;
const ipCost = (withString: boolean) => (args: readonly CelValue[]): number => {
  const size = actualSize(args[0]!);
  return Math.ceil(2 * size * f) + (withString ? Math.ceil(actualSize(args[1]!) * f) : 0);
};
const cidrCost = (withString: boolean) => (args: readonly CelValue[]): number => {
  const size = actualSize(args[0]!);
  return Math.ceil(2 * size * f) + Math.ceil(size * f) + 1 + (withString ? Math.ceil(actualSize(args[1]!) * f) : 0);
};

const overloads: Overload[] = [
  {
    signature: 'isCIDR(string): bool',
    impl: (s) => {
      try {
        parseKubernetesCIDR(str(s));
        return true;
      } catch (e) {
        if (e instanceof CelEvalError && !(e.message === 'no such overload')) return false;
        throw e;
      }
    },
    cost: (args) => traversal(args[0]!),
  },
  { signature: 'cidr(string): net.CIDR', impl: (s) => new CelCIDR(parseKubernetesCIDR(str(s))), cost: (args) => traversal(args[0]!) },
  { signature: 'net.CIDR.containsIP(string): bool', impl: (c, s) => prefixContains(toPrefix(c), parseKubernetesIP(str(s))), cost: ipCost(true) },
  { signature: 'net.CIDR.containsIP(net.IP): bool', impl: (c, ip) => prefixContains(toPrefix(c), toAddr(ip)), cost: ipCost(false) },
  { signature: 'net.CIDR.containsCIDR(string): bool', impl: (c, s) => containsCIDR(toPrefix(c), parseKubernetesCIDR(str(s))), cost: cidrCost(true) },
  { signature: 'net.CIDR.containsCIDR(net.CIDR): bool', impl: (c, o) => containsCIDR(toPrefix(c), toPrefix(o)), cost: cidrCost(false) },
  { signature: 'net.CIDR.ip(): net.IP', impl: (c) => new CelIP(toPrefix(c).addr) },
  {
    signature: 'net.CIDR.masked(): net.CIDR',
    impl: (c) => {
      const p = toPrefix(c);
      return new CelCIDR({ addr: maskAddr(p.addr, p.bits), bits: p.bits });
    },
  },
  { signature: 'net.CIDR.prefixLength(): int', impl: (c) => BigInt(toPrefix(c).bits) },
  { signature: 'string(net.CIDR): string', impl: (c) => `${addrString(toPrefix(c).addr)}/${toPrefix(c).bits}` },
];

export const cidrLibrary: CelLibrary = {
  name: 'kubernetes.net.cidr',
  since: 30,
  overloads: withKubernetesEstimates(overloads),
  types: ['net.CIDR'],
};
