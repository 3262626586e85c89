/**
 * The authenticating proxy (`--requestheader-*`), after kube 1.32's request header authenticator: a
 * front proxy that authenticated the user passes the identity in headers (`X-Remote-User`,
 * `X-Remote-Group`, `X-Remote-Extra-<key>`, and with the RemoteRequestHeaderUID gate a uid header).
 *
 * The headers are trusted ONLY on a connection whose client certificate verifies against
 * `--requestheader-client-ca-file` (a bundle of its own, not the `--client-ca-file` one) and, when
 * `--requestheader-allowed-names` is set, carries one of those common names. On every request, trusted
 * or not, the identity headers are removed so nothing downstream (impersonation, logs, a proxied backend)
 * can read a forged identity. The CA bundle may be reloaded while the server runs (ca-bundle.ts): every
 * request is judged against the bundle in use at that moment.
 *
 * Answers, as kube's verifier does:
 * - no client certificate: no opinion (headers ignored);
 * - a certificate that does not verify against the bundle, or whose CN is not allowed: invalid
 *   credentials (the x509 authenticator may still accept it; otherwise 401);
 * - a verified proxy without a user name header: no opinion;
 * - else the user: name = the first non-empty value of the username headers (in flag order), groups =
 *   every non-empty value of every group header (repeated headers included), extra = every value of every
 *   header under an extra prefix, keyed by the rest of the header name lower-cased then percent-decoded
 *   (left as is when it does not decode), uid = the first non-empty uid header value.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { InvalidCredentials, type RequestAuthenticator } from './authenticator.js';
import { staticCaBundle, type CaBundle } from './ca-bundle.js';
import { connectionVerifier } from './client-cert-chain.js';
import { authenticatedGroup, unauthenticatedGroup, type UserInfo } from './user-info.js';

export interface RequestHeaderOptions {
  /** The bundle of `--requestheader-client-ca-file` (reloading), or its PEM text (fixed). */
  readonly ca: CaBundle | string;
  /** `--requestheader-allowed-names`; empty: any certificate the bundle verifies. */
  readonly allowedNames: readonly string[];
  readonly usernameHeaders: readonly string[];
  readonly groupHeaders: readonly string[];
  readonly extraHeaderPrefixes: readonly string[];
  /** Empty unless RemoteRequestHeaderUID is on. */
  readonly uidHeaders: readonly string[];
  /** Epoch ms; default Date.now. */
  readonly now?: () => number;
}

/** Go's url.PathUnescape; undefined on a malformed escape (or bytes that are not UTF-8). */
function pathUnescape(s: string): string | undefined {
  if (!s.includes('%')) return s;
  if (/%(?![0-9a-fA-F]{2})/.test(s)) return undefined;
  const bytes = Buffer.from(s.replace(/%([0-9a-fA-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1');
  // Go keeps the bytes as they are; a JS string needs text, so bytes that are not UTF-8 keep their escapes.
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : undefined;
}

/** The header names in lower case (Node's `headersDistinct` keys are lower case). */
const lower = (names: readonly string[]): string[] => names.map((n) => n.trim().toLowerCase()).filter((n) => n !== '');

/** Adds `system:authenticated` unless a system group of authentication is already there (kube's group adder). */
function withAuthenticated(user: UserInfo): UserInfo {
  if (user.groups.includes(authenticatedGroup) || user.groups.includes(unauthenticatedGroup)) return user;
  return { ...user, groups: [...user.groups, authenticatedGroup] };
}

export function requestHeaderAuthenticator(o: RequestHeaderOptions): RequestAuthenticator {
  const bundle = typeof o.ca === 'string' ? staticCaBundle('request-header', o.ca) : o.ca;
  const verify = connectionVerifier(() => bundle.roots(), o.now);
  const allowed = new Set(o.allowedNames);
  const userHeaders = lower(o.usernameHeaders);
  const groupHeaders = lower(o.groupHeaders);
  const uidHeaders = lower(o.uidHeaders);
  const extraPrefixes = lower(o.extraHeaderPrefixes);

  const exact = new Set([...userHeaders, ...uidHeaders, ...groupHeaders]);
  const isIdentityHeader = (lowerName: string): boolean => exact.has(lowerName) || extraPrefixes.some((p) => lowerName.startsWith(p));
  /** Removes the identity headers from every view Node keeps of them (headers, headersDistinct, rawHeaders). */
  const strip = (req: IncomingMessage): void => {
    for (const h of Object.keys(req.headers)) if (isIdentityHeader(h)) delete req.headers[h];
    const distinct = req.headersDistinct;
    for (const h of Object.keys(distinct)) if (isIdentityHeader(h)) delete distinct[h];
    const raw = req.rawHeaders;
    for (let i = raw.length - 2; i >= 0; i -= 2) if (isIdentityHeader(raw[i]!.toLowerCase())) raw.splice(i, 2);
  };

  /** Takes the identity headers off the request (whatever the verdict), returning their values. */
  const takeHeaders = (req: IncomingMessage) => {
    const distinct = req.headersDistinct;
    const first = (names: readonly string[]): string => {
      for (const n of names) {
        const v = distinct[n]?.[0];
        if (v !== undefined && v !== '') return v;
      }
      return '';
    };
    const name = first(userHeaders);
    const uid = first(uidHeaders);
    const groups = groupHeaders.flatMap((n) => (distinct[n] ?? []).filter((v) => v !== ''));
    const extra: Record<string, string[]> = {};
    for (const prefix of extraPrefixes) {
      for (const [header, values] of Object.entries(distinct)) {
        if (!header.startsWith(prefix) || values === undefined) continue;
        const encoded = header.slice(prefix.length);
        const key = pathUnescape(encoded) ?? encoded;
        (extra[key] ??= []).push(...values);
      }
    }
    strip(req);
    return { name, uid, groups, extra };
  };

  return {
    name: 'requestheader',
    authenticate(req: IncomingMessage) {
      const identity = takeHeaders(req);
      const verdict = verify(req.socket as TLSSocket);
      if (verdict.kind === 'none') return undefined;
      if (verdict.kind === 'invalid') throw new InvalidCredentials(verdict.reason);
      if (allowed.size > 0 && !allowed.has(verdict.commonName)) {
        throw new InvalidCredentials(`x509: subject with cn=${verdict.commonName} is not in the allowed list`);
      }
      if (identity.name === '') return undefined;
      return withAuthenticated({
        name: identity.name,
        uid: identity.uid,
        groups: identity.groups,
        ...(Object.keys(identity.extra).length > 0 ? { extra: identity.extra } : {}),
      });
    },
  };
}
