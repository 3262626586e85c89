/**
 * The headers of a proxied request and of its answer.
 *
 * To the backend: the caller's identity in request-header form (`X-Remote-User`, one `X-Remote-Group`
 * per group, `X-Remote-Extra-<key>` per extra value with the key escaped as client-go's
 * `headerKeyEscape`), replacing any the caller sent; the caller's `Authorization` (this server consumed
 * it) and hop-by-hop headers are dropped; protobuf is removed from `Accept` (aggregated resources are
 * never served in protobuf here).
 *
 * From the backend: everything but the hop-by-hop headers.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { UserInfo } from '../auth/user-info.js';
import { essence } from '../codec/media-type.js';

/** RFC 7230 token characters, the bytes a header name may hold (Go's isTokenTable). */
const TOKEN = /^[!#$&'*+\-.^_`|~0-9A-Za-z]$/;

/** client-go's `headerKeyEscape`: every byte that is not a token character, and `%`, as `%XX`. */
export function headerKeyEscape(key: string): string {
  let out = '';
  for (const b of Buffer.from(key, 'utf8')) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && TOKEN.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Hop-by-hop headers (Go's reverse proxy drops them both ways). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

const isIdentityHeader = (lower: string): boolean =>
  lower === 'authorization' || lower === 'x-remote-user' || lower === 'x-remote-group' || lower === 'x-remote-uid' || lower.startsWith('x-remote-extra-') || lower.startsWith('impersonate-');

/** Whether a media type (an Accept clause or a Content-Type) is protobuf, under any domain's name. */
export const isProtobufType = (mediaType: string): boolean => {
  const e = essence(mediaType);
  return e.startsWith('application/') && e.endsWith('.protobuf');
};

/**
 * The Accept header without its protobuf clauses: undefined when the header is absent, '' when every
 * clause was protobuf (the caller answers 406 then).
 */
export function acceptWithoutProtobuf(accept: string | undefined): string | undefined {
  if (accept === undefined || accept.trim() === '') return undefined;
  return accept
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && !isProtobufType(c))
    .join(', ');
}

/** The identity headers of `user`, as kube-aggregator's auth proxy round tripper sets them. */
export function identityHeaders(user: UserInfo, uidHeader = false): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { 'X-Remote-User': user.name };
  if (uidHeader && user.uid !== '') headers['X-Remote-Uid'] = user.uid;
  if (user.groups.length > 0) headers['X-Remote-Group'] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) {
    if (values.length > 0) headers[`X-Remote-Extra-${headerKeyEscape(key)}`] = [...values];
  }
  return headers;
}

/** The request headers for the backend: the caller's, cleaned, plus `identity` and `host`. */
export function requestHeaders(incoming: IncomingHttpHeaders, identity: OutgoingHttpHeaders, host: string, accept: string | undefined): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(incoming)) {
    const lower = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(lower) || isIdentityHeader(lower) || lower === 'host' || lower === 'accept') continue;
    out[lower] = value;
  }
  if (accept !== undefined) out.accept = accept;
  out.host = host;
  return { ...out, ...identity };
}

/** The response headers for the caller: the backend's without the hop-by-hop ones. */
export function responseHeaders(incoming: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase())) out[name] = value;
  }
  return out;
}
