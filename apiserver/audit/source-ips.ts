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

/** The connection's address, normalized once per connection (keep-alive connections carry many requests). */
const remoteCache = new WeakMap<object, string | null>();

function remoteOf(req: IncomingMessage): string | undefined {
  const socket = req.socket;
  let remote = remoteCache.get(socket);
  if (remote === undefined) {
    const address = socket.remoteAddress;
    remote = address === undefined ? null : (normalize(address) ?? null);
    // Not cached before the address is known (a socket may not report it yet).
    if (address !== undefined) remoteCache.set(socket, remote);
  }
  return remote ?? undefined;
}

export function sourceIPs(req: IncomingMessage): string[] {
  const ips: string[] = [];
  const forwarded = header(req, 'x-forwarded-for');
  if (forwarded !== undefined && forwarded !== '') {
    for (const part of forwarded.split(',')) {
      const ip = normalize(part);
      if (ip !== undefined) ips.push(ip);
    }
  }
  const real = header(req, 'x-real-ip');
  if (real !== undefined && real !== '') {
    const ip = normalize(real);
    if (ip !== undefined && !ips.includes(ip)) ips.push(ip);
  }
  const remote = remoteOf(req);
  if (remote !== undefined && (ips.length === 0 || ips[ips.length - 1] !== remote)) ips.push(remote);
  return ips;
}
