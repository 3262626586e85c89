/**
 * The `responseStatus.message` of a request that failed authentication, in kube-apiserver 1.32's words:
 * `Authentication failed, attempted: <methods>` naming what the request presented, in kube's order
 * (`basic`, `bearer`, `access_token`, `x509`), or `Authentication failed, no credentials provided`.
 *
 * Each method counts as kube counts it, whether or not this server accepts it:
 * - `basic`: an `Authorization: Basic <base64 of user:password>` header that decodes (Go's BasicAuth);
 * - `bearer`: an `Authorization` header whose first space-separated word is `bearer` (any case) and that
 *   has at least one more word;
 * - `access_token`: a non-blank `access_token` query parameter;
 * - `x509`: a client certificate presented on the TLS connection (verified or not).
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

export function failedAuthenticationMessage(req: IncomingMessage, query: URLSearchParams): string {
  const methods: string[] = [];
  const header = req.headers.authorization;
  if (header !== undefined && isBasicAuth(header)) methods.push('basic');
  if (header !== undefined) {
    const parts = header.trim().split(' ');
    if (parts.length > 1 && parts[0]!.toLowerCase() === 'bearer') methods.push('bearer');
  }
  if ((query.get('access_token') ?? '').trim() !== '') methods.push('access_token');
  if (hasPeerCertificate(req.socket as TLSSocket)) methods.push('x509');
  return methods.length > 0 ? `Authentication failed, attempted: ${methods.join(', ')}` : 'Authentication failed, no credentials provided';
}

/** Go's `Request.BasicAuth` succeeds: the `Basic ` prefix (any case), standard base64, a colon inside. */
function isBasicAuth(header: string): boolean {
  if (header.length < 6 || header.slice(0, 6).toLowerCase() !== 'basic ') return false;
  const encoded = header.slice(6);
  // Go's StdEncoding is strict: padded, the standard alphabet only.
  if (encoded.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) return false;
  return Buffer.from(encoded, 'base64').toString('latin1').includes(':');
}

function hasPeerCertificate(socket: TLSSocket): boolean {
  if (typeof socket.getPeerCertificate !== 'function') return false;
  const cert = socket.getPeerCertificate();
  return cert !== null && cert !== undefined && cert.raw !== undefined;
}
