/**
 * Kubernetes' certificate admission plugins, for `certificatesigningrequests` of `certificates.<domain>`:
 *
 * - CertificateApproval: every write through `/approval` needs verb `approve` on the synthetic resource
 *   `signers` (group `certificates.<domain>`) named after the stored request's signerName, or
 *   `<signer domain>/*`;
 * - CertificateSigning: a `/status` write that changes `status.certificate` needs verb `sign` likewise;
 * - CertificateSubjectRestriction: a create for the API server client signer whose subject names the
 *   `system:masters` organization is refused.
 *
 * Checked against the stored object's signer (a write cannot change the spec). The server's own writes (no
 * user: the controllers) pass. Denials are 403 with Kubernetes' messages
 * (`user not permitted to approve requests with signerName "..."`).
 */
import type { UserInfo } from '../../auth/user-info.js';
import type { Authorizer } from '../../authorization/authorizer.js';
import { forbidden } from '../../errors/constructors.js';
import type { Naming } from '../../naming/naming.js';
import { certificateOf } from '../../registry/kinds/certificates/csr-validation.js';
import { parseCsr } from '../../registry/kinds/certificates/parse-csr.js';
import { bytesOf } from '../../registry/kinds/certificates/pem-blocks.js';
import { signerNames } from '../../registry/kinds/certificates/signer-names.js';
import type { KubeObject } from '../../api/object.js';
import type { AdmissionAttributes } from '../attributes.js';
import type { AdmissionPlugin } from '../plugin.js';

const RESOURCE = 'certificatesigningrequests';

const signerOf = (csr: KubeObject | undefined): string => String((csr?.spec as { signerName?: unknown } | undefined)?.signerName ?? '');

/**
 * Kubernetes' IsAuthorizedForSignerName: `verb` on `signers` named `signerName`, else on
 * `<domain portion>/*`.
 */
export function authorizedForSigner(authorizer: Authorizer, naming: Naming, user: UserInfo, verb: string, signerName: string): boolean {
  const ask = (name: string): boolean =>
    authorizer.authorize({
      user,
      verb,
      isResourceRequest: true,
      path: '',
      namespace: '',
      apiGroup: naming.group('certificates'),
      apiVersion: '*',
      resource: 'signers',
      subresource: '',
      name,
    }).decision === 'allow';
  return ask(signerName) || ask(`${signerName.split('/')[0]}/*`);
}

export function certificateAdmission(naming: Naming, authorizer: Authorizer): AdmissionPlugin[] {
  const group = naming.group('certificates');
  const isCsr = (a: AdmissionAttributes): boolean => a.resource.group === group && a.resource.resource === RESOURCE;
  const deny = (a: AdmissionAttributes, detail: string) => forbidden({ group, resource: RESOURCE }, a.name, detail);
  const approval: AdmissionPlugin = {
    name: 'CertificateApproval',
    operations: ['UPDATE'],
    validate(a) {
      if (!isCsr(a) || a.subresource !== 'approval' || a.userInfo === undefined) return;
      const signer = signerOf(a.oldObject);
      if (!authorizedForSigner(authorizer, naming, a.userInfo, 'approve', signer)) {
        throw deny(a, `user not permitted to approve requests with signerName ${JSON.stringify(signer)}`);
      }
    },
  };
  const signing: AdmissionPlugin = {
    name: 'CertificateSigning',
    operations: ['UPDATE'],
    validate(a) {
      if (!isCsr(a) || a.subresource !== 'status' || a.userInfo === undefined) return;
      if (certificateOf(a.oldObject) === certificateOf(a.object)) return;
      const signer = signerOf(a.oldObject);
      if (!authorizedForSigner(authorizer, naming, a.userInfo, 'sign', signer)) {
        throw deny(a, `user not permitted to sign requests with signerName ${JSON.stringify(signer)}`);
      }
    },
  };
  const subjectRestriction: AdmissionPlugin = {
    name: 'CertificateSubjectRestriction',
    operations: ['CREATE'],
    validate(a) {
      if (!isCsr(a) || a.subresource !== '') return;
      const client = signerNames(naming).apiserverClient;
      if (signerOf(a.object) !== client) return;
      let organizations: string[];
      try {
        const csr = parseCsr(bytesOf((a.object?.spec as { request?: unknown } | undefined)?.request));
        organizations = csr.subjectName.getField('O');
      } catch (err) {
        throw deny(a, `failed to parse CSR: ${(err as Error).message}`);
      }
      if (organizations.includes('system:masters')) throw deny(a, `use of ${client} signer with system:masters group is not allowed`);
    },
  };
  return [approval, signing, subjectRestriction];
}
