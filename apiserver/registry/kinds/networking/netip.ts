/**
 * IP addresses and prefixes as Go's `net/netip` reads and prints them, which is what Kubernetes v1.32's
 * networking validation uses for IPAddress names and ServiceCIDR blocks: strict parsing (no leading zeros
 * in IPv4 octets, at most four hex digits per IPv6 group, zones allowed on addresses but not in prefixes)
 * with Go's error texts, and the canonical text form (IPv4 dotted decimal; IPv6 per RFC 5952: lower case,
 * the longest run of two or more zero groups shortened to `::`, the first such run on a tie, an
 * IPv4-mapped address as `::ffff:a.b.c.d`).
 *
 * Results are plain data; nothing here throws for bad input.
 */

export interface Addr {
  /** 4 bytes for IPv4, 16 for IPv6 (an IPv4-mapped address stays IPv6, as netip keeps it). */
  readonly bytes: readonly number[];
  /** The IPv6 zone (`eth0` of `fe80::1%eth0`), '' when none. */
  readonly zone: string;
}

export type Parsed<T> = { readonly ok: T } | { readonly error: string };

/** Go's strconv.Quote for the ASCII text these errors quote (JSON's escaping agrees on it). */
const quote = (s: string): string => JSON.stringify(s);

function addrError(input: string, msg: string, at = ''): { error: string } {
  return { error: `ParseAddr(${quote(input)}): ${msg}${at === '' ? '' : ` (at ${quote(at)})`}` };
}

/** netip.ParseAddr. */
export function parseAddr(input: string): Parsed<Addr> {
  for (const ch of input) {
    if (ch === '.') return parseIPv4(input);
    if (ch === ':') return parseIPv6(input);
    if (ch === '%') return addrError(input, 'missing IPv6 address');
  }
  return addrError(input, 'unable to parse IP');
}

/** The four octets of `in.slice(off, end)`; errors name the whole input, as Go's do. */
function parseIPv4Fields(input: string, off: number, end: number): Parsed<number[]> {
  const s = input.slice(off, end);
  const fields: number[] = [];
  let val = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c >= '0' && c <= '9') {
      if (digits === 1 && val === 0) return addrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + (c.charCodeAt(0) - 48);
      digits++;
      if (val > 255) return addrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') return addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (fields.length === 3) return addrError(input, 'IPv4 address too long');
      fields.push(val);
      val = 0;
      digits = 0;
    } else {
      return addrError(input, 'unexpected character', s.slice(i));
    }
  }
  if (fields.length < 3) return addrError(input, 'IPv4 address too short');
  fields.push(val);
  return { ok: fields };
}

function parseIPv4(input: string): Parsed<Addr> {
  const r = parseIPv4Fields(input, 0, input.length);
  return 'error' in r ? r : { ok: { bytes: r.ok, zone: '' } };
}

function hexValue(c: string): number {
  if (c >= '0' && c <= '9') return c.charCodeAt(0) - 48;
  if (c >= 'a' && c <= 'f') return c.charCodeAt(0) - 87;
  if (c >= 'A' && c <= 'F') return c.charCodeAt(0) - 55;
  return -1;
}

function parseIPv6(input: string): Parsed<Addr> {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct >= 0) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === '') return addrError(input, 'zone must be a non-empty string');
  }
  const ip = new Array<number>(16).fill(0);
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return { ok: { bytes: ip, zone } };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const h = hexValue(s[off]!);
      if (h < 0) break;
      acc = acc * 16 + h;
      if (off > 3) return addrError(input, 'each group must have 4 or less digits', s);
      if (acc > 0xffff) return addrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) return addrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) return addrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) return addrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const end = input.length - (zone === '' ? 0 : zone.length + 1);
      const v4 = parseIPv4Fields(input, end - s.length, end);
      if ('error' in v4) return v4;
      ip.splice(i, 4, ...v4.ok);
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s === '') break;
    if (s[0] !== ':') return addrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) return addrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) return addrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') return addrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) return addrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    for (let j = ellipsis; j < ellipsis + n; j++) ip[j] = 0;
  } else if (ellipsis >= 0) {
    return addrError(input, 'the :: must expand to at least one field of zeros', s);
  }
  return { ok: { bytes: ip, zone } };
}

const isV4Mapped = (b: readonly number[]): boolean => b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;

/** netip.Addr.String(): the canonical text form. */
export function addrString(a: Addr): string {
  const b = a.bytes;
  const zone = a.zone === '' ? '' : `%${a.zone}`;
  if (b.length === 4) return b.join('.');
  if (isV4Mapped(b)) return `::ffff:${b.slice(12).join('.')}${zone}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((b[i]! << 8) | b[i + 1]!);
  // The longest run of at least two zero groups (the first one on a tie) becomes '::'.
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) { bestStart = i; bestLen = j - i; }
    i = j;
  }
  const hex = (g: number[]): string => g.map((x) => x.toString(16)).join(':');
  if (bestStart < 0) return hex(groups) + zone;
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLen))}${zone}`;
}

/** 4 or 6: the family netip reports (an IPv4-mapped IPv6 address is IPv6). */
export const addrFamily = (a: Addr): 4 | 6 => (a.bytes.length === 4 ? 4 : 6);

export interface Prefix {
  readonly addr: Addr;
  readonly bits: number;
}

function prefixError(input: string, msg: string): { error: string } {
  return { error: `netip.ParsePrefix(${quote(input)}): ${msg}` };
}

/** netip.ParsePrefix: `<address>/<bits>`, no zone, bits without sign or leading zero, within the family's size. */
export function parsePrefix(input: string): Parsed<Prefix> {
  const slash = input.lastIndexOf('/');
  if (slash < 0) return prefixError(input, "no '/'");
  const addr = parseAddr(input.slice(0, slash));
  if ('error' in addr) return prefixError(input, addr.error);
  if (addr.ok.zone !== '') return prefixError(input, 'IPv6 zones cannot be present in a prefix');
  const bitsText = input.slice(slash + 1);
  const bad = prefixError(input, `bad bits after slash: ${quote(bitsText)}`);
  if (bitsText.length > 1 && (bitsText[0]! < '1' || bitsText[0]! > '9')) return bad;
  if (!/^[0-9]+$/.test(bitsText)) return bad;
  const bits = Number(bitsText);
  if (bits > addr.ok.bytes.length * 8) return prefixError(input, 'prefix length out of range');
  return { ok: { addr: addr.ok, bits } };
}

/** The prefix with every bit past `bits` cleared (netip.Prefix.Masked). */
export function maskedPrefix(p: Prefix): Prefix {
  const bytes = p.addr.bytes.map((b, i) => {
    const keep = Math.max(0, Math.min(8, p.bits - i * 8));
    return b & ((0xff << (8 - keep)) & 0xff);
  });
  return { addr: { bytes, zone: '' }, bits: p.bits };
}

/** netip.Prefix.String(). */
export const prefixString = (p: Prefix): string => `${addrString(p.addr)}/${p.bits}`;
