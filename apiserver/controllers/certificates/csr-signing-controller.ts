/**
 * csrsigning (kube-controller-manager's csrsigning controllers, one per well-known signer, here one loop
 * for all): a CertificateSigningRequest that is Approved, not Failed, has no certificate yet and names a
 * well-known signer this server has material for gets `status.certificate` written through the status
 * sub-resource, as the server itself (no admission, no authorization: the controller is trusted code).
 *
 * - the signer's subject/usage rules (signer-policy.ts) refused: condition Failed, reason
 *   `SignerValidationFailure`, kube's message; nothing is issued;
 * - issuing failed otherwise (unusable request or usage, expired CA): reported through `onError` and
 *   retried on the next pass, as kube returns the error to its queue;
 * - validity: `--cluster-signing-duration`, or expirationSeconds when smaller (issue-certificate.ts).
 *
 * The write re-checks the stored request (still approved, still without certificate), so a request is
 * issued at most once per replica's view; on the leader only (leader election), so once overall.
 */
import type { KubeObject } from '../../api/object.js';
import { StatusError } from '../../errors/status-error.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import type { ParsedCsr } from '../../registry/kinds/certificates/parse-csr.js';
import type { SignerNames } from '../../registry/kinds/certificates/signer-names.js';
import type { SigningMaterial } from '../../tls/signing-material.js';
import { csrView, startCsrLoop, withCondition, type CsrController } from './csr-follow.js';
import { certificateTtlMs, issueCertificate, IssueError, parseCertificateRequest } from './issue-certificate.js';
import { requestNames, signerProblem, type SignerRole } from './signer-policy.js';

export const CSR_SIGNING_FIELD_MANAGER = 'certificatesigningrequest-signing-controller';

export interface CsrSigningOptions {
  readonly csrs: GenericRegistry;
  readonly signers: SignerNames;
  readonly material: SigningMaterial;
  readonly resyncMs?: number;
  readonly onError?: (err: unknown, csr?: string) => void;
  /** After a certificate was written (tests, logs). */
  readonly onIssued?: (csr: string) => void;
  /** After Failed was written. */
  readonly onFailed?: (csr: string, message: string) => void;
}

/** The role of a signer name, for the signers csrsigning serves. */
export function signerRoleOf(signers: SignerNames, name: string): SignerRole | undefined {
  if (name === signers.apiserverClient) return 'apiserver-client';
  if (name === signers.nodeAgentClient) return 'apiserver-client-nodeagent';
  if (name === signers.nodeAgentServing) return 'nodeagent-serving';
  if (name === signers.legacyUnknown) return 'legacy-unknown';
  return undefined;
}

const pending = (csr: KubeObject): boolean => {
  const v = csrView(csr);
  return v.trueConditions.has('Approved') && !v.trueConditions.has('Failed') && !v.hasCertificate;
};

export function startCsrSigningController(o: CsrSigningOptions): CsrController {
  const handle = async (csr: KubeObject): Promise<void> => {
    if (!pending(csr)) return;
    const v = csrView(csr);
    const role = signerRoleOf(o.signers, v.signerName);
    if (role === undefined) return;
    const ca = o.material.cas[role];
    if (ca === undefined) return;

    let update: (current: KubeObject) => KubeObject;
    let failed: string | undefined;
    let parsed: ParsedCsr;
    try {
      parsed = parseCertificateRequest(v.requestPem);
      failed = signerProblem(role, requestNames(parsed), v.usages);
    } catch (err) {
      // kube: unparseable requests are an error for the queue, never Failed (validation keeps them out).
      if (err instanceof IssueError) throw new Error(`unable to parse csr "${v.name}": ${err.message}`);
      throw err;
    }
    if (failed !== undefined) {
      const message = failed;
      update = (current) => (pending(current) ? withCondition(current, { type: 'Failed', reason: 'SignerValidationFailure', message }) : current);
    } else {
      const certPem = await issueCertificate({
        request: parsed,
        usages: v.usages,
        ttlMs: certificateTtlMs(o.material.durationMs, v.expirationSeconds),
        ca,
      }).catch((err: unknown) => {
        throw new Error(`error auto signing csr: ${(err as Error).message}`);
      });
      const certificate = Buffer.from(certPem, 'latin1').toString('base64');
      update = (current) => {
        // Only the request we issued for: same spec, still pending.
        if (!pending(current) || csrView(current).requestPem !== v.requestPem) return current;
        const status = (current.status ?? {}) as Record<string, unknown>;
        return { ...current, status: { ...status, certificate } };
      };
    }
    let wrote = false;
    try {
      await o.csrs.patch('', v.name, (current) => {
        const next = update(current);
        wrote = next !== current;
        return next;
      }, { subresource: 'status', fieldManager: CSR_SIGNING_FIELD_MANAGER });
    } catch (err) {
      if (err instanceof StatusError && err.reason === 'NotFound') return;
      throw err;
    }
    if (!wrote) return;
    if (failed === undefined) o.onIssued?.(v.name);
    else o.onFailed?.(v.name, failed);
  };
  return startCsrLoop({ csrs: o.csrs, handle, ...(o.resyncMs === undefined ? {} : { resyncMs: o.resyncMs }), ...(o.onError === undefined ? {} : { onError: o.onError }) });
}
