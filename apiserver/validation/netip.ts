/**
 * IP addresses and prefixes as Go's net/netip parses and prints them: for CEL's ip and cidr libraries, and
 * for the validation Kubernetes v1.32 does with netip (IPAddress names, ServiceCIDR blocks, canonical
 * service addresses).
 *
 * An address is 4 or 16 bytes (`bits` 32 or 128) with an optional IPv6 zone. Parsing is netip's: IPv4
 * only in dotted-quad form with no leading zeros (`01.2.3.4` refused), IPv6 with at most one `::` and an
 * optional trailing dotted IPv4 part; errors carry netip's wording (`ParseAddr("1.2.3"): IPv4 address too
 * short`). Printing is netip's `String()`: IPv6 in RFC 5952 form (lowercase, the longest run of two or more
 * zero groups compressed), IPv4-mapped addresses as `::ffff:1.2.3.4`.
 */

export interface Addr {
  readonly bytes: Uint8Array;
  readonly zone: string;
}

export class AddrParseError extends Error {}

/** `parseAddr` or `parsePrefix` without throwing: the value, or netip's error text. */
export function tryParse<T>(parse: (s: string) => T, s: string): { readonly ok: T } | { readonly error: string } {
  try {
    return { ok: parse(s) };
  } catch (err) {
    if (err instanceof AddrParseError) return { error: err.message };
    throw err;
  }
}

function addrError(input: string, msg: string, at?: string): AddrParseError {
  return new AddrParseError(`ParseAddr(${JSON.stringify(input)}): ${msg}${at !== undefined && at !== '' ? ` (at ${JSON.stringify(at)})` : ''}`);
}

function parseIPv4(s: string, input = s): Uint8Array {
  const out = new Uint8Array(4);
  let val = 0;
  let digits = 0;
  let pos = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c >= '0' && c <= '9') {
      if (digits === 1 && val === 0) throw addrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + (c.charCodeAt(0) - 48);
      digits++;
      if (val > 255) throw addrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') throw addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) throw addrError(input, 'IPv4 address too long');
      out[pos++] = val;
      val = 0;
      digits = 0;
    } else {
      throw addrError(input, 'unexpected character', s.slice(i));
    }
  }
  if (pos < 3) throw addrError(input, 'IPv4 address too short');
  out[3] = val;
  return out;
}

function parseIPv6(input: string): Addr {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct >= 0) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === '') throw addrError(input, 'zone must be a non-empty string');
  }
  const out = new Uint8Array(16);
  let ellipsis = -1;
  let i = 0;
  if (s.length >= 2 && s[0] === ':' && s[1] === ':') {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return { bytes: out, zone };
  }
  while (i < 16) {
    let off = 0;
    let acc = 0;
    while (off < s.length) {
      const c = s[off]!;
      let d: number;
      if (c >= '0' && c <= '9') d = c.charCodeAt(0) - 48;
      else if (c >= 'a' && c <= 'f') d = c.charCodeAt(0) - 87;
      else if (c >= 'A' && c <= 'F') d = c.charCodeAt(0) - 55;
      else break;
      if (off > 3) throw addrError(input, 'each group must have 4 or less digits', s);
      acc = acc * 16 + d;
      off++;
    }
    if (off === 0) throw addrError(input, 'each colon-separated field must have at least one digit', s);
    // An embedded IPv4 address in the last 32 bits.
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) throw addrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) throw addrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const v4 = parseIPv4(s, input);
      out.set(v4, i);
      i += 4;
      s = '';
      break;
    }
    out[i] = acc >> 8;
    out[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ':') throw addrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw addrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw addrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) throw addrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw addrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) out[j + n] = out[j]!;
    out.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) {
    throw addrError(input, 'the :: must expand to at least one field of zeros');
  }
  return { bytes: out, zone };
}

/** Go's `netip.ParseAddr`. */
export function parseAddr(s: string): Addr {
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '.') return { bytes: parseIPv4(s), zone: '' };
    if (c === ':') return parseIPv6(s);
    if (c === '%') throw addrError(s, 'missing IPv6 address');
  }
  throw addrError(s, 'unable to parse IP');
}

export const is4 = (a: Addr): boolean => a.bytes.length === 4;

/** An IPv6 address of the form ::ffff:a.b.c.d. */
export function is4In6(a: Addr): boolean {
  const b = a.bytes;
  if (b.length !== 16) return false;
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}

/** Go's `netip.Addr.String()`. */
export function addrString(a: Addr): string {
  const b = a.bytes;
  if (b.length === 4) return Array.from(b).join('.');
  const zone = a.zone ? `%${a.zone}` : '';
  if (is4In6(a)) return `::ffff:${Array.from(b.subarray(12)).join('.')}${zone}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((b[i]! << 8) | b[i + 1]!);
  // The longest run of at least two zero groups (the first on a tie) becomes `::`.
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestStart < 0) return groups.map((g) => g.toString(16)).join(':') + zone;
  const head = groups.slice(0, bestStart).map((g) => g.toString(16)).join(':');
  const tail = groups.slice(bestStart + bestLen).map((g) => g.toString(16)).join(':');
  return `${head}::${tail}${zone}`;
}

export interface Prefix {
  readonly addr: Addr;
  readonly bits: number;
}

/** Go's `netip.ParsePrefix`. */
export function parsePrefix(s: string): Prefix {
  const q = JSON.stringify(s);
  const slash = s.lastIndexOf('/');
  if (slash < 0) throw new AddrParseError(`netip.ParsePrefix(${q}): no '/'`);
  let addr: Addr;
  try {
    addr = parseAddr(s.slice(0, slash));
  } catch (e) {
    if (e instanceof AddrParseError) throw new AddrParseError(`netip.ParsePrefix(${q}): ${e.message}`);
    throw e;
  }
  if (addr.zone !== '') throw new AddrParseError(`netip.ParsePrefix(${q}): IPv6 zones cannot be present in a prefix`);
  const bitsStr = s.slice(slash + 1);
  // Go refuses signs and leading zeros ("/08"); "/0" is fine.
  if (!/^(0|[1-9][0-9]*)$/.test(bitsStr)) throw new AddrParseError(`netip.ParsePrefix(${q}): bad bits after slash: ${JSON.stringify(bitsStr)}`);
  const bits = Number(bitsStr);
  if (bits > addr.bytes.length * 8) throw new AddrParseError(`netip.ParsePrefix(${q}): prefix length out of range`);
  return { addr, bits };
}

/** The address with the bits beyond the prefix cleared. */
export function maskAddr(a: Addr, bits: number): Addr {
  const out = new Uint8Array(a.bytes);
  for (let i = 0; i < out.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    out[i] = out[i]! & ((0xff << (8 - keep)) & 0xff);
  }
  return { bytes: out, zone: '' };
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Go's `Prefix.Contains`: same family, equal under the prefix mask. */
export function prefixContains(p: Prefix, a: Addr): boolean {
  if (a.zone !== '' || a.bytes.length !== p.addr.bytes.length) return false;
  return sameBytes(maskAddr(p.addr, p.bits).bytes, maskAddr(a, p.bits).bytes);
}
