/**
 * x509 client certificates (`--client-ca-file`), after kube 1.32's x509 request authenticator: the TLS
 * server asks every client for a certificate without requiring one, and this authenticator verifies the
 * peer chain against the client CA bundle in process (client-cert-chain.ts: signatures, validity of
 * every certificate at the time of the request, intermediates that are CAs, extended key usage
 * `clientAuth` or none). The bundle is this authenticator's own: the serving CA and the request-header
 * proxy's CA are separate and grant nothing here. The bundle may be reloaded while the server runs
 * (ca-bundle.ts): every request is judged against the bundle in use at that moment.
 *
 * Answers:
 * - no client certificate: no opinion;
 * - a certificate that does not verify (untrusted, expired, not for client auth): invalid credentials (401
 *   unless another authenticator accepts the request);
 * - a verified certificate without a subject CN: no opinion, as kube's CommonNameUserConversion;
 * - else the user: name = the subject CN (the last one), groups = the subject O values in order, plus
 *   `system:authenticated`; no uid; extra `authentication.kubernetes.io/credential-id` =
 *   `X509SHA256=<hex SHA-256 of the leaf DER>`.
 * The verdict is computed once per TLS connection (the peer cannot change) and again once it expires.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { x509 } from '../tls/crypto-provider.js';
import { InvalidCredentials, type RequestAuthenticator } from './authenticator.js';
import { staticCaBundle, type CaBundle } from './ca-bundle.js';
import { connectionVerifier, peerChain } from './client-cert-chain.js';
import { withAuthenticatedGroup, type UserInfo } from './user-info.js';

/** The extra key of the credential's id (shared with service account tokens' `JTI=`). */
const credentialIdKey = 'authentication.kubernetes.io/credential-id';

export interface X509Options {
  /** The bundle of `--client-ca-file` (reloading), or its PEM text (fixed). */
  readonly ca: CaBundle | string;
  /** Epoch ms; default Date.now. */
  readonly now?: () => number;
  /** Why a presented certificate was refused (debug logs). */
  readonly onRejected?: (reason: string) => void;
}

export function x509Authenticator(o: X509Options): RequestAuthenticator {
  const bundle = typeof o.ca === 'string' ? staticCaBundle('client-ca-bundle', o.ca) : o.ca;
  const verify = connectionVerifier(() => bundle.roots(), o.now);
  const users = new WeakMap<TLSSocket, UserInfo | null>();
  return {
    name: 'x509',
    authenticate(req: IncomingMessage): UserInfo | undefined {
      const socket = req.socket as TLSSocket;
      const verdict = verify(socket);
      if (verdict.kind === 'none') return undefined;
      if (verdict.kind === 'invalid') {
        o.onRejected?.(verdict.reason);
        throw new InvalidCredentials(verdict.reason);
      }
      let user = users.get(socket);
      if (user === undefined) {
        user = userOf(peerChain(socket)[0]!.raw);
        users.set(socket, user);
      }
      return user ?? undefined;
    },
  };
}

/** The user of a verified leaf certificate (DER), or null without a CN. */
function userOf(der: Buffer): UserInfo | null {
  const subject = new x509.X509Certificate(der).subjectName;
  const cns = subject.getField('CN');
  const name = cns[cns.length - 1] ?? '';
  if (name === '') return null;
  const fingerprint = createHash('sha256').update(der).digest('hex');
  return withAuthenticatedGroup({
    name,
    uid: '',
    groups: Object.freeze([...subject.getField('O')]),
    extra: Object.freeze({ [credentialIdKey]: Object.freeze([`X509SHA256=${fingerprint}`]) }),
  });
}
