/**
 * csrapproving (kube-controller-manager's, pkg/controller/certificates/approver): approves node-agent
 * client certificate requests, and nothing else.
 *
 * A request is recognized when its signer is the node-agent client signer (`<legacy domain>/
 * kube-apiserver-client-kubelet` under k8s.io, `platform.io/apiserver-client-nodeagent` otherwise) and it
 * passes that signer's checks (O `system:nodes`, CN `system:node:<name>`, no SANs, client usages). Then,
 * in kube's order, it is approved when the requester (spec.username, uid, groups, extra: who created it)
 * is authorized by the server's authorizer, as a SubjectAccessReview would ask:
 *
 * 1. `create` `certificatesigningrequests/selfnodeclient` in the certificates group, when the requester is
 *    the node itself (username = the request's CN) — message "Auto approving self kubelet client
 *    certificate after SubjectAccessReview.";
 * 2. `create` `certificatesigningrequests/nodeclient` — "Auto approving kubelet client certificate after
 *    SubjectAccessReview.".
 *
 * Approved with reason `AutoApproved` through the approval sub-resource, as the server itself. Requests
 * already Approved or Denied, or with a certificate, are left alone; a recognized request whose requester
 * is not authorized stays pending (an admin may still approve it).
 */
import type { KubeObject } from '../../api/object.js';
import type { Authorizer } from '../../authorization/authorizer.js';
import { StatusError } from '../../errors/status-error.js';
import type { Naming } from '../../naming/naming.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import type { SignerNames } from '../../registry/kinds/certificates/signer-names.js';
import { csrView, startCsrLoop, withCondition, type CsrController, type CsrView } from './csr-follow.js';
import { IssueError, parseCertificateRequest } from './issue-certificate.js';
import { nodeClientProblem, requestNames } from './signer-policy.js';

export const CSR_APPROVING_FIELD_MANAGER = 'certificatesigningrequest-approving-controller';

export interface CsrApprovingOptions {
  readonly csrs: GenericRegistry;
  readonly signers: SignerNames;
  readonly naming: Naming;
  readonly authorizer: Authorizer;
  readonly resyncMs?: number;
  readonly onError?: (err: unknown, csr?: string) => void;
  readonly onApproved?: (csr: string, message: string) => void;
}

const selfNodeClientMessage = 'Auto approving self kubelet client certificate after SubjectAccessReview.';
const nodeClientMessage = 'Auto approving kubelet client certificate after SubjectAccessReview.';

/** Whether the requester may have `subresource` approved (a SubjectAccessReview of the CSR's requester). */
function allowed(authorizer: Authorizer, naming: Naming, v: CsrView, subresource: string): boolean {
  const r = authorizer.authorize({
    user: { name: v.username, uid: v.uid, groups: v.groups, extra: v.extra },
    verb: 'create',
    isResourceRequest: true,
    path: '',
    namespace: '',
    apiGroup: naming.group('certificates'),
    apiVersion: '*',
    resource: 'certificatesigningrequests',
    subresource,
    name: '',
  });
  return r.decision === 'allow';
}

export function startCsrApprovingController(o: CsrApprovingOptions): CsrController {
  const handle = async (csr: KubeObject): Promise<void> => {
    const v = csrView(csr);
    if (v.hasCertificate || v.decided || v.signerName !== o.signers.nodeAgentClient) return;
    let parsed;
    try {
      parsed = parseCertificateRequest(v.requestPem);
    } catch (err) {
      if (err instanceof IssueError) throw new Error(`unable to parse csr "${v.name}": ${err.message}`);
      throw err;
    }
    const names = requestNames(parsed);
    if (nodeClientProblem(names, v.usages) !== undefined) return;

    let message: string | undefined;
    if (v.username === names.commonName && allowed(o.authorizer, o.naming, v, 'selfnodeclient')) message = selfNodeClientMessage;
    else if (allowed(o.authorizer, o.naming, v, 'nodeclient')) message = nodeClientMessage;
    if (message === undefined) return;

    const approval = message;
    let wrote = false;
    try {
      await o.csrs.patch('', v.name, (current) => {
        const now = csrView(current);
        if (now.decided || now.hasCertificate || now.requestPem !== v.requestPem) return current;
        wrote = true;
        return withCondition(current, { type: 'Approved', reason: 'AutoApproved', message: approval });
      }, { subresource: 'approval', fieldManager: CSR_APPROVING_FIELD_MANAGER });
    } catch (err) {
      if (err instanceof StatusError && err.reason === 'NotFound') return;
      throw err;
    }
    if (wrote) o.onApproved?.(v.name, approval);
  };
  return startCsrLoop({ csrs: o.csrs, handle, ...(o.resyncMs === undefined ? {} : { resyncMs: o.resyncMs }), ...(o.onError === undefined ? {} : { onError: o.onError }) });
}
