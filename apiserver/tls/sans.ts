import { isIP } from 'node:net';
import { hostname } from 'node:os';

/** A subject alternative name: a DNS name or an IP address (canonical text form). */
export interface San {
  readonly type: 'dns' | 'ip';
  readonly value: string;
}

/** Canonical IP text: IPv6 compressed and lower-case (`0:0::1` -> `::1`), IPv4 unchanged. */
export function canonicalIp(ip: string): string {
  return isIP(ip) === 6 ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : ip;
}

/** Classifies a name from `--tls-sans`: an IP literal is an IP SAN, anything else a DNS SAN (lower-cased). */
export function toSan(name: string): San {
  return isIP(name) === 0 ? { type: 'dns', value: name.toLowerCase() } : { type: 'ip', value: canonicalIp(name) };
}

/**
 * The SANs of the generated serving certificate: localhost, 127.0.0.1, ::1, the host name, then the
 * extras; duplicates dropped, order kept.
 */
export function servingSans(extra: readonly string[]): readonly San[] {
  const seen = new Set<string>();
  const out: San[] = [];
  for (const name of ['localhost', '127.0.0.1', '::1', hostname(), ...extra]) {
    const san = toSan(name);
    const key = sanKey(san);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(san);
    }
  }
  return out;
}

/** `dns:localhost` / `ip:::1`: for comparing SAN sets. */
export function sanKey(san: San): string {
  return `${san.type}:${san.value}`;
}
