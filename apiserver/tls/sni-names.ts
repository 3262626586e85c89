/**
 * Which certificate answers a TLS client's server name (SNI), as kube's dynamic serving certificates do
 * (named_certificates.go `BuildNamedCertificates` + Go's `getCertificate`):
 *
 * - an SNI pair with explicit names is registered under exactly those names; one without is registered
 *   under the names of its certificate: the subject CN when it is a DNS name (or `*`, or a `*.`-prefixed
 *   DNS name) and not an IP, then the DNS SANs, then the IP SANs;
 * - explicit names always win over extracted ones; among pairs of the same kind, the EARLIER flag wins;
 * - lookup: the client's name lowercased, exactly; else with its first label replaced by `*`
 *   (`a.foo.com` matches `*.foo.com`, `foo.com` and `a.b.foo.com` do not); else the default serving
 *   certificate. So an exact name beats a wildcard.
 */
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';

/** DNS-1123 subdomain (kube's IsDNS1123Subdomain). */
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The names kube takes from a certificate for SNI when none are given. */
export function certificateNames(cert: X509Certificate): string[] {
  const names: string[] = [];
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1];
  if (cn !== undefined && isIP(cn) === 0) {
    const bare = cn.startsWith('*.') ? cn.slice(2) : cn;
    if (cn === '*' || (bare.length <= 253 && dns1123Subdomain.test(bare))) names.push(cn);
  }
  for (const entry of splitSans(cert.subjectAltName ?? '')) {
    if (entry.startsWith('DNS:')) names.push(entry.slice(4));
  }
  for (const entry of splitSans(cert.subjectAltName ?? '')) {
    if (entry.startsWith('IP Address:')) names.push(entry.slice('IP Address:'.length));
  }
  return names;
}

/** Node's subjectAltName text: `DNS:a, DNS:b, IP Address:1.2.3.4` (quoted entries only for odd characters). */
function splitSans(text: string): string[] {
  return text === '' ? [] : text.split(', ').map((s) => s.replace(/^(DNS|IP Address):"(.*)"$/, '$1:$2'));
}

export interface SniEntry<T> {
  readonly value: T;
  readonly cert: X509Certificate;
  readonly explicitNames: readonly string[];
}

/** name → value, built with kube's precedence (see above). */
export function buildNameMap<T>(entries: readonly SniEntry<T>[]): Map<string, T> {
  const extracted = new Map<string, T>();
  const explicit = new Map<string, T>();
  // Backwards, so that earlier entries overwrite later ones.
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.explicitNames.length > 0) {
      for (const n of e.explicitNames) explicit.set(n, e.value);
    } else {
      for (const n of certificateNames(e.cert)) extracted.set(n, e.value);
    }
  }
  for (const [n, v] of explicit) extracted.set(n, v);
  return extracted;
}

/** The value for a client's server name: exact, then first label as `*`; undefined: the default. */
export function lookupServerName<T>(map: ReadonlyMap<string, T>, serverName: string): T | undefined {
  const name = serverName.toLowerCase();
  const exact = map.get(name);
  if (exact !== undefined || name === '') return exact;
  const labels = name.split('.');
  labels[0] = '*';
  return map.get(labels.join('.'));
}
