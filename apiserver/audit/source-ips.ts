/**
 * The `sourceIPs` of an audit event, in kube's order (utilnet.SourceIPs): every valid address of
 * `X-Forwarded-For` (comma-separated), then `X-Real-Ip` unless already listed, then the connection's remote
 * address unless it is already the last one. Only the remote address cannot be forged by the client; the
 * others are what the client or its proxies claim. IPv4-mapped IPv6 addresses print as IPv4 (as Go does).
 */
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

function normalize(text: string): string | undefined {
  const t = text.trim();
  if (isIP(t) === 0) return undefined;
  const lower = t.toLowerCase();
  return lower.startsWith('::ffff:') && isIP(lower.slice(7)) === 4 ? lower.slice(7) : lower;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Per connection (keep-alive connections carry many requests): the remote address normalized, as the list a
 * request without forwarding headers reports, shared (frozen) by all of them.
 */
const remoteCache = new WeakMap<object, readonly string[]>();
const none: readonly string[] = Object.freeze([]);

function remoteOf(req: IncomingMessage): readonly string[] {
  const socket = req.socket;
  let remote = remoteCache.get(socket);
  if (remote === undefined) {
    const address = socket.remoteAddress;
    const ip = address === undefined ? undefined : normalize(address);
    remote = ip === undefined ? none : Object.freeze([ip]);
    // Not cached before the address is known (a socket may not report it yet).
    if (address !== undefined) remoteCache.set(socket, remote);
  }
  return remote;
}

/** The request's source addresses; without forwarding headers, a frozen list shared by its connection. */
export function sourceIPs(req: IncomingMessage): readonly string[] {
  const forwarded = header(req, 'x-forwarded-for');
  const real = header(req, 'x-real-ip');
  const remote = remoteOf(req);
  if ((forwarded === undefined || forwarded === '') && (real === undefined || real === '')) return remote;
  const ips: string[] = [];
  if (forwarded !== undefined && forwarded !== '') {
    for (const part of forwarded.split(',')) {
      const ip = normalize(part);
      if (ip !== undefined) ips.push(ip);
    }
  }
  if (real !== undefined && real !== '') {
    const ip = normalize(real);
    if (ip !== undefined && !ips.includes(ip)) ips.push(ip);
  }
  const r = remote[0];
  if (r !== undefined && (ips.length === 0 || ips[ips.length - 1] !== r)) ips.push(r);
  return ips;
}
