/**
 * What each well-known signer accepts, as kube-controller-manager 1.32's csrsigning checks it before
 * issuing (pkg/apis/certificates/helpers.go, pkg/controller/certificates/signer): a request a signer
 * refuses is marked Failed with reason `SignerValidationFailure` and the message returned here.
 *
 * - node-agent (kubelet) client: O exactly `system:nodes`, no DNS/email/IP/URI SANs, CN starting
 *   `system:node:`, usages exactly {digital signature, key encipherment, client auth} or {digital
 *   signature, client auth};
 * - node-agent (kubelet) serving: O exactly `system:nodes`, at least one DNS or IP SAN, no email or URI
 *   SANs, usages exactly {digital signature, key encipherment, server auth} or {digital signature, server
 *   auth}, CN starting `system:node:`;
 * - API server client: client auth required; digital signature and key encipherment allowed; nothing else;
 * - legacy-unknown: anything.
 */
import type { x509 } from '../../tls/crypto-provider.js';
import { x509 as lib } from '../../tls/crypto-provider.js';

/** The role of a well-known signer, whatever its name under the group domain. */
export type SignerRole = 'apiserver-client' | 'apiserver-client-nodeagent' | 'nodeagent-serving' | 'legacy-unknown';

type Csr = InstanceType<typeof x509.Pkcs10CertificateRequest>;

/** The subject and SANs of a request, as the checks read them. */
export interface RequestNames {
  readonly commonName: string;
  readonly organizations: readonly string[];
  readonly dns: readonly string[];
  readonly ips: readonly string[];
  readonly emails: readonly string[];
  readonly uris: readonly string[];
}

/** The request's subject alternative names (from its extension request attribute). */
export function requestSans(csr: Csr): { type: string; value: string }[] {
  const ext = csr.extensions.find((e) => e.type === '2.5.29.17');
  if (ext === undefined) return [];
  const san = ext instanceof lib.SubjectAlternativeNameExtension ? ext : new lib.SubjectAlternativeNameExtension(ext.rawData);
  return san.names.items.map((n) => ({ type: n.type, value: n.value }));
}

export function requestNames(csr: Csr): RequestNames {
  const cn = csr.subjectName.getField('CN');
  const sans = requestSans(csr);
  const of = (type: string) => sans.filter((n) => n.type === type).map((n) => n.value);
  return {
    // Go keeps the last CN when there are several.
    commonName: cn[cn.length - 1] ?? '',
    organizations: csr.subjectName.getField('O'),
    dns: of('dns'),
    ips: of('ip'),
    emails: of('email'),
    uris: of('url'),
  };
}

const sameSet = (usages: readonly string[], wanted: readonly string[]): boolean => {
  const have = new Set(usages);
  return have.size === wanted.length && wanted.every((u) => have.has(u));
};

const nodeClientUsages = ['client auth', 'digital signature', 'key encipherment'];
const nodeClientUsagesNoRsa = ['client auth', 'digital signature'];
const nodeServingUsages = ['digital signature', 'key encipherment', 'server auth'];
const nodeServingUsagesNoRsa = ['digital signature', 'server auth'];

const isSystemNodes = (o: readonly string[]) => o.length === 1 && o[0] === 'system:nodes';

/** Kube's check of a node-agent client request; undefined when it passes, else the message. */
export function nodeClientProblem(n: RequestNames, usages: readonly string[]): string | undefined {
  if (!isSystemNodes(n.organizations)) return 'subject organization is not system:nodes';
  if (n.dns.length > 0) return 'DNS subjectAltNames are not allowed';
  if (n.emails.length > 0) return 'Email subjectAltNames are not allowed';
  if (n.ips.length > 0) return 'IP subjectAltNames are not allowed';
  if (n.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!n.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  if (!sameSet(usages, nodeClientUsages) && !sameSet(usages, nodeClientUsagesNoRsa)) return `usages did not match [${nodeClientUsages.join(' ')}]`;
  return undefined;
}

function nodeServingProblem(n: RequestNames, usages: readonly string[]): string | undefined {
  if (!isSystemNodes(n.organizations)) return 'subject organization is not system:nodes';
  if (n.dns.length === 0 && n.ips.length === 0) return 'DNS or IP subjectAltName is required';
  if (n.emails.length > 0) return 'Email subjectAltNames are not allowed';
  if (n.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!sameSet(usages, nodeServingUsages) && !sameSet(usages, nodeServingUsagesNoRsa)) return `usages did not match [${nodeServingUsages.join(' ')}]`;
  if (!n.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  return undefined;
}

function apiServerClientProblem(usages: readonly string[]): string | undefined {
  let clientAuth = false;
  for (const u of usages) {
    if (u === 'client auth') clientAuth = true;
    else if (u !== 'digital signature' && u !== 'key encipherment') return `invalid usage for client certificate: ${u}`;
  }
  return clientAuth ? undefined : 'missing required usage for client certificate: client auth';
}

/** Why `role`'s signer refuses the request (the Failed condition's message); undefined when it may issue. */
export function signerProblem(role: SignerRole, names: RequestNames, usages: readonly string[]): string | undefined {
  switch (role) {
    case 'apiserver-client-nodeagent':
      return nodeClientProblem(names, usages);
    case 'nodeagent-serving':
      return nodeServingProblem(names, usages);
    case 'apiserver-client':
      return apiServerClientProblem(usages);
    case 'legacy-unknown':
      return undefined;
  }
}
