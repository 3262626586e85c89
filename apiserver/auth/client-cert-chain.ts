/**
 * Verifying a TLS client's certificate chain against one CA bundle, in process, per authenticator. The
 * TLS server requests client certificates without verifying them against any particular CA (its `ca` may
 * be the `--client-ca-file` bundle, or none), so each authenticator that trusts certificates checks the
 * peer chain against its own roots: the request-header proxy against `--requestheader-client-ca-file`.
 *
 * What is checked, as Go's x509 Verify with client-auth usage does: a path from the leaf through the
 * certificates the peer sent (intermediates must be CAs) to a root of the bundle, every signature, every
 * validity period (root included) at `now`, and the extended key usages of every certificate on the path
 * (none, `clientAuth` or `anyExtendedKeyUsage`). The TLS handshake already proved that the peer holds the
 * leaf's private key.
 */
import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { x509 } from '../tls/crypto-provider.js';

const clientAuthEku = '1.3.6.1.5.5.7.3.2';
const anyEku = '2.5.29.37.0';
/** Longest path (leaf, intermediates, root) tried. */
const maxDepth = 8;

export type ChainVerdict =
  /** The peer presented no certificate. */
  | { readonly kind: 'none' }
  /** A certificate that does not verify against the bundle; `reason` is for logs. */
  | { readonly kind: 'invalid'; readonly reason: string }
  /** Verified; the leaf's subject common name (the last CN attribute, as Go reads it). */
  | { readonly kind: 'verified'; readonly commonName: string; readonly notAfter: number };

/** The certificates of a PEM bundle (anything between BEGIN/END CERTIFICATE lines). */
export function parsePemBundle(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((b) => new X509Certificate(b));
}

/** The chain the peer sent (leaf first), or [] without a client certificate. */
export function peerChain(socket: TLSSocket): X509Certificate[] {
  if (typeof socket.getPeerCertificate !== 'function') return [];
  const first = socket.getPeerCertificate(true);
  const out: X509Certificate[] = [];
  const seen = new Set<string>();
  let c: typeof first | undefined = first;
  while (c !== undefined && c !== null && c.raw !== undefined && out.length < 16) {
    const fp = c.fingerprint256;
    if (seen.has(fp)) break;
    seen.add(fp);
    out.push(new X509Certificate(c.raw));
    c = c.issuerCertificate;
  }
  return out;
}

const timeValid = (c: X509Certificate, now: number): boolean => Date.parse(c.validFrom) <= now && now <= Date.parse(c.validTo);

/** The certificate's extended key usages allow client authentication (no extension: any use). */
const clientUsable = (c: X509Certificate): boolean => {
  const ekus = c.keyUsage as string[] | undefined;
  return ekus === undefined || ekus.length === 0 || ekus.includes(clientAuthEku) || ekus.includes(anyEku);
};

function issuedBy(child: X509Certificate, parent: X509Certificate): boolean {
  try {
    return child.checkIssued(parent) && child.verify(parent.publicKey);
  } catch {
    return false;
  }
}

/** Whether `cert` chains to a root through `pool`; the notAfter of the path's earliest-expiring certificate. */
function chainsTo(cert: X509Certificate, pool: readonly X509Certificate[], roots: readonly X509Certificate[], now: number, depth: number): number | undefined {
  if (!timeValid(cert, now) || !clientUsable(cert)) return undefined;
  const own = Date.parse(cert.validTo);
  for (const root of roots) {
    if (root.fingerprint256 === cert.fingerprint256) return own;
    if (issuedBy(cert, root) && timeValid(root, now) && clientUsable(root)) return Math.min(own, Date.parse(root.validTo));
  }
  if (depth >= maxDepth) return undefined;
  for (const inter of pool) {
    if (!inter.ca || inter.fingerprint256 === cert.fingerprint256 || !issuedBy(cert, inter)) continue;
    const rest = chainsTo(inter, pool.filter((p) => p !== inter), roots, now, depth + 1);
    if (rest !== undefined) return Math.min(own, rest);
  }
  return undefined;
}

/** The last CN of the subject (Go's pkix.Name keeps the last one), '' when there is none. */
function commonName(cert: X509Certificate): string {
  const names = new x509.X509Certificate(cert.raw).subjectName.getField('CN');
  return names[names.length - 1] ?? '';
}

/** Verifies `chain` (leaf first, then what the peer sent) against `roots` at `now` (epoch ms). */
export function verifyClientChain(chain: readonly X509Certificate[], roots: readonly X509Certificate[], now: number): ChainVerdict {
  const leaf = chain[0];
  if (leaf === undefined) return { kind: 'none' };
  const notAfter = chainsTo(leaf, chain.slice(1), roots, now, 1);
  if (notAfter === undefined) return { kind: 'invalid', reason: 'the client certificate does not verify against the CA bundle' };
  return { kind: 'verified', commonName: commonName(leaf), notAfter };
}

/**
 * `verifyClientChain` of a connection's peer against the roots `roots()` returns now, computed once per
 * connection (the peer certificate cannot change on a TLS connection) and again when the verified path
 * has expired or the roots changed (a reloaded CA bundle hands out a new array): a keep-alive connection
 * whose CA was removed by a reload is refused from its next request on, as kube verifies every request
 * against the bundle in use.
 */
export function connectionVerifier(roots: () => readonly X509Certificate[], now: () => number = Date.now): (socket: TLSSocket) => ChainVerdict {
  const bySocket = new WeakMap<TLSSocket, { readonly roots: readonly X509Certificate[]; readonly verdict: ChainVerdict }>();
  return (socket) => {
    const t = now();
    const current = roots();
    const known = bySocket.get(socket);
    if (known !== undefined && known.roots === current && (known.verdict.kind !== 'verified' || t <= known.verdict.notAfter)) return known.verdict;
    const verdict = verifyClientChain(peerChain(socket), current, t);
    bySocket.set(socket, { roots: current, verdict });
    return verdict;
  };
}
