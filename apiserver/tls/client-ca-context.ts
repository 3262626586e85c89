/**
 * The HTTPS server's list of acceptable client certificate CAs, kept in step with reloaded CA bundles.
 *
 * The server asks every client for a certificate (requestCert, never required: rejectUnauthorized false)
 * and the authenticators verify the chain themselves against their own bundle, so OpenSSL's own verdict
 * is not used. The TLS `ca` option still matters: OpenSSL names its subjects in the CertificateRequest,
 * and clients pick the certificate to send from that list (Go's crypto/tls, so kubectl, sends none when
 * its certificate's issuer is not named). After a reload of `--client-ca-file` or
 * `--requestheader-client-ca-file` the server therefore gets a new secure context with the new list
 * (tls/dynamic-serving.ts: `tls.Server#setSecureContext`, new connections use it, open ones keep theirs,
 * as kube's GetConfigForClient does), and so do the SNI contexts.
 */
import type { SecureContextOptions } from 'node:tls';
import type { CaBundle } from '../auth/ca-bundle.js';

/** The secure context options of `base` with the bundles' current PEMs as `ca` (none: no `ca`). */
export function withClientCas(base: SecureContextOptions, bundles: readonly CaBundle[]): SecureContextOptions {
  return bundles.length === 0 ? base : { ...base, ca: bundles.map((b) => b.pem()) };
}
