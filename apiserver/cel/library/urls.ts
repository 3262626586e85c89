/**
 * Kubernetes' URL library (`kubernetes.urls`, every version): `isURL(string)`, `url(string)` and the
 * accessors `getScheme`, `getHost`, `getHostname`, `getPort`, `getEscapedPath`, `getQuery` of the
 * `kubernetes.URL` type.
 *
 * Parsing follows Go's net/url as Kubernetes applies it: a string is a URL when `url.ParseRequestURI`
 * accepts it (an absolute URI, or an absolute path such as `/absolute-path`; a relative path, an invalid
 * port `https://a:b:c/`, a bad escape or a control character is refused); the parts are then those of
 * `url.Parse` (which splits off the `#fragment`). Errors: `URL parse error during conversion from string:
 * parse "<s>": <Go's reason>`.
 *
 * Cost (k8s cost.go): `url` `ceil(size * 0.1)`; the others 1.
 */
import { CelEvalError } from '../errors.js';
import { CelOpaque, type CelMap, type CelMapKey, type CelValue } from '../values/value.js';
import { goQuote } from './go-format.js';
import type { CelLibrary, Overload } from './library.js';
import { noSuchOverload, str, traversal } from './support.js';
import { withKubernetesEstimates } from '../cost/kubernetes-estimates.js';

type Mode = 'path' | 'host' | 'zone' | 'userPassword' | 'queryComponent' | 'fragment';

class UrlError extends Error {}

const isAlnum = (c: string): boolean => /^[A-Za-z0-9]$/.test(c);

/** Go's `shouldEscape(c, mode)` for an ASCII character. */
function shouldEscape(c: string, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  if (mode === 'host' || mode === 'zone') {
    if ("!$&'()*+,;=:[]<>\"".includes(c)) return false;
  }
  if ('-_.~'.includes(c)) return false;
  if ('$&+,/:;=?@'.includes(c)) {
    switch (mode) {
      case 'path':
        return c === '?';
      case 'userPassword':
        return c === '@' || c === '/' || c === '?' || c === ':';
      case 'queryComponent':
        return true;
      case 'fragment':
        return false;
    }
  }
  if (mode === 'fragment' && '!()*'.includes(c)) return false;
  return true;
}

const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9A-Fa-f]$/.test(c);

/** Go's `unescape(s, mode)` over UTF-8 bytes: `%XX` decoded, `+` a space in query components. */
function unescape(s: string, mode: Mode): string {
  const bytes = Buffer.from(s, 'utf8');
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    const c = String.fromCharCode(b);
    if (c === '%') {
      const h1 = i + 1 < bytes.length ? String.fromCharCode(bytes[i + 1]!) : undefined;
      const h2 = i + 2 < bytes.length ? String.fromCharCode(bytes[i + 2]!) : undefined;
      if (!isHex(h1) || !isHex(h2)) {
        const seq = bytes.subarray(i, Math.min(i + 3, bytes.length)).toString('latin1');
        throw new UrlError(`invalid URL escape ${goQuote(seq)}`);
      }
      const v = parseInt(h1! + h2!, 16);
      // Hosts may only escape non-ASCII bytes (and %25 in zones), as Go checks.
      if (mode === 'host' && parseInt(h1!, 16) < 8 && `%${h1}${h2}` !== '%25') {
        throw new UrlError(`invalid URL escape ${goQuote(`%${h1}${h2}`)}`);
      }
      out.push(v);
      i += 2;
    } else if (c === '+') {
      out.push(mode === 'queryComponent' ? 0x20 : b);
    } else {
      if ((mode === 'host' || mode === 'zone') && b < 0x80 && shouldEscape(c, mode)) {
        throw new UrlError(`invalid character ${goQuote(c)} in host name`);
      }
      out.push(b);
    }
  }
  return Buffer.from(out).toString('utf8');
}

/** Go's `escape(s, encodePath)`. */
function escapePath(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (b < 0x80 && !shouldEscape(c, 'path')) out += c;
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Go's `validEncoded(s, encodePath)`: only characters a path may carry unescaped (plus `%`). */
function validEncodedPath(s: string): boolean {
  for (const ch of s) {
    if ("!$&'()*+,;=:@[]".includes(ch)) continue;
    if (ch === '%') continue;
    if (ch.length > 1 || ch.charCodeAt(0) >= 0x80 || shouldEscape(ch, 'path')) return false;
  }
  return true;
}

const validOptionalPort = (port: string): boolean => port === '' || (port[0] === ':' && /^[0-9]*$/.test(port.slice(1)));

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${goQuote(colonPort)} after host`);
    // RFC 6874 zone: `[fe80::1%25en0]`; the zone may carry escapes of its own.
    const zone = host.slice(0, i).indexOf('%25');
    if (zone >= 0) {
      const h1 = unescape(host.slice(0, zone), 'host');
      const h2 = unescape(host.slice(zone, i), 'zone');
      const h3 = unescape(host.slice(i), 'host');
      return h1 + h2 + h3;
    }
  } else {
    const i = host.lastIndexOf(':');
    if (i >= 0) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${goQuote(colonPort)} after host`);
    }
  }
  return unescape(host, 'host');
}

/** Go's `validUserinfo`. */
const validUserinfo = (s: string): boolean => /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(s);

interface ParsedUrl {
  scheme: string;
  opaque: string;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
  fragment: string;
}

/** Go's `getScheme`. */
function splitScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new UrlError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

/** Go's `parse(rawURL, viaRequest)` (without the fragment). */
function parse(raw: string, viaRequest: boolean): ParsedUrl {
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new UrlError('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new UrlError('empty url');
  const u: ParsedUrl = { scheme: '', opaque: '', host: '', path: '', rawPath: '', rawQuery: '', fragment: '' };
  if (raw === '*') {
    u.path = '*';
    return u;
  }
  let [scheme, rest] = splitScheme(raw);
  u.scheme = scheme.toLowerCase();
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      u.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (u.scheme !== '') {
      u.opaque = rest;
      return u;
    }
    if (viaRequest) throw new UrlError('invalid URI for request');
    const seg = rest.split('/')[0]!;
    if (seg.includes(':')) throw new UrlError('first path segment in URL cannot contain colon');
  }
  if ((u.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    const at = authority.lastIndexOf('@');
    u.host = parseHost(at < 0 ? authority : authority.slice(at + 1));
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!validUserinfo(userinfo)) throw new UrlError('net/url: invalid userinfo');
      const colon = userinfo.indexOf(':');
      unescape(colon < 0 ? userinfo : userinfo.slice(0, colon), 'userPassword');
      if (colon >= 0) unescape(userinfo.slice(colon + 1), 'userPassword');
    }
  }
  u.path = unescape(rest, 'path');
  u.rawPath = rest;
  return u;
}

function wrap<T>(raw: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof UrlError) throw new UrlError(`parse ${goQuote(raw)}: ${e.message}`);
    throw e;
  }
}

/** Go's `url.ParseRequestURI` then `url.Parse`, as Kubernetes' `url()`. */
export function parseKubernetesUrl(raw: string): ParsedUrl {
  wrap(raw, () => parse(raw, true));
  return wrap(raw, () => {
    const hash = raw.indexOf('#');
    const u = parse(hash < 0 ? raw : raw.slice(0, hash), false);
    if (hash >= 0) u.fragment = unescape(raw.slice(hash + 1), 'fragment');
    return u;
  });
}

/** Go's `url.ParseRequestURI` error message (`parse "foo": invalid URI for request`), or undefined when it parses. */
export function requestUriError(raw: string): string | undefined {
  try {
    wrap(raw, () => parse(raw, true));
    return undefined;
  } catch (e) {
    if (e instanceof UrlError) return e.message;
    throw e;
  }
}

export const isUrl = (raw: string): boolean => requestUriError(raw) === undefined;

/** A `kubernetes.URL` value. */
export class CelUrl extends CelOpaque {
  readonly typeName = 'kubernetes.URL';
  constructor(readonly url: ParsedUrl) {
    super();
  }
  equals(other: CelOpaque): boolean {
    if (!(other instanceof CelUrl)) return false;
    const a = this.url;
    const b = other.url;
    return a.scheme === b.scheme && a.opaque === b.opaque && a.host === b.host && a.path === b.path && a.rawQuery === b.rawQuery && a.fragment === b.fragment;
  }
  /** Go's `u.Hostname()` / `u.Port()`: split at the last colon when a valid port follows, brackets removed. */
  hostPort(): [string, string] {
    let host = this.url.host;
    let port = '';
    const colon = host.lastIndexOf(':');
    if (colon >= 0 && validOptionalPort(host.slice(colon))) {
      port = host.slice(colon + 1);
      host = host.slice(0, colon);
    }
    if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
    return [host, port];
  }
  /** Go's `u.EscapedPath()`: the raw path when it is a valid encoding of the path, else the path escaped. */
  escapedPath(): string {
    const { path, rawPath } = this.url;
    if (rawPath !== '' && validEncodedPath(rawPath)) {
      try {
        if (unescape(rawPath, 'path') === path) return rawPath;
      } catch {
        // fall through to escaping
      }
    }
    if (path === '*') return '*';
    return escapePath(path);
  }
}

/** Go's `url.ParseQuery` (errors skipped, as `u.Query()`): key -> values in order. */
export function parseQuery(rawQuery: string): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const part of rawQuery.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    try {
      const key = unescape(eq < 0 ? part : part.slice(0, eq), 'queryComponent');
      const value = eq < 0 ? '' : unescape(part.slice(eq + 1), 'queryComponent');
      const list = m.get(key);
      if (list) list.push(value);
      else m.set(key, [value]);
    } catch (e) {
      if (!(e instanceof UrlError)) throw e;
    }
  }
  return m;
}

/** A CelMap over string keys (for `getQuery()`). */
export function stringKeyedMap(entries: Map<string, CelValue>): CelMap {
  return {
    kind: 'map',
    size: entries.size,
    get: (k: CelMapKey) => (typeof k === 'string' ? entries.get(k) : undefined),
    has: (k: CelMapKey) => typeof k === 'string' && entries.has(k),
    keys: () => entries.keys(),
  };
}

function toUrl(v: CelValue): CelUrl {
  if (!(v instanceof CelUrl)) throw noSuchOverload();
  return v;
}

function urlOf(s: string): CelUrl {
  try {
    return new CelUrl(parseKubernetesUrl(s));
  } catch (e) {
    if (e instanceof UrlError) throw new CelEvalError(`URL parse error during conversion from string: ${e.message}`);
    throw e;
  }
}

const overloads: Overload[] = [
  { signature: 'url(string): kubernetes.URL', impl: (s) => urlOf(str(s)), cost: (args) => traversal(args[0]!) },
  { signature: 'isURL(string): bool', impl: (s) => isUrl(str(s)) },
  { signature: 'kubernetes.URL.getScheme(): string', impl: (u) => toUrl(u).url.scheme },
  { signature: 'kubernetes.URL.getHost(): string', impl: (u) => toUrl(u).url.host },
  { signature: 'kubernetes.URL.getHostname(): string', impl: (u) => toUrl(u).hostPort()[0] },
  { signature: 'kubernetes.URL.getPort(): string', impl: (u) => toUrl(u).hostPort()[1] },
  { signature: 'kubernetes.URL.getEscapedPath(): string', impl: (u) => toUrl(u).escapedPath() },
  {
    signature: 'kubernetes.URL.getQuery(): map<string, list<string>>',
    impl: (u) => stringKeyedMap(new Map([...parseQuery(toUrl(u).url.rawQuery)].map(([k, v]) => [k, v as CelValue]))),
  },
];

export const urlsLibrary: CelLibrary = {
  name: 'kubernetes.urls',
  since: 0,
  overloads: withKubernetesEstimates(overloads),
  types: ['kubernetes.URL'],
};
